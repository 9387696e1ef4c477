import Foundation

/// Whole-degree cells that index live-stream subscriptions, so a new post is offered only to
/// the streams whose area may contain it instead of to every open stream. A subscription's
/// cells cover its area (a superset: each stream still applies its exact test); areas that
/// would need very many cells, or touch a pole, listen everywhere instead.
public enum StreamCells {
    public typealias Cell = Int32
    /// Beyond this many cells a subscription is cheaper to keep in the everywhere list.
    static let maxCellsPerSubscription = 1024
    static let metresPerDegree = 111_195.0

    /// The cell of a point; longitude 180 is the same meridian as -180.
    public static func cell(lat: Double, lon: Double) -> Cell {
        let row = Int32(min(89, max(-90, floor(lat)))) + 90          // 0...179
        var column = Int32(floor(lon))
        if column >= 180 { column -= 360 }
        return row * 360 + (max(-180, column) + 180)                 // column 0...359
    }

    /// The cells covering a stream's area, or nil when it should hear of everything.
    public static func cells(for area: StreamQuery.Area) -> Set<Cell>? {
        switch area {
        case .box(let box):
            return cells(south: box.south, north: box.north, lonRanges: box.nonCrossingParts.map { ($0.west, $0.east) })
        case .circle(let lat, let lon, let radius):
            let dLat = radius / metresPerDegree
            let south = lat - dLat, north = lat + dLat
            guard south > -89, north < 89 else { return nil }
            let dLon = dLat / cos(max(abs(south), abs(north)) * .pi / 180)
            guard dLon < 90 else { return nil }
            let west = lon - dLon, east = lon + dLon
            var ranges: [(Double, Double)] = [(max(-180, west), min(180, east))]
            if west < -180 { ranges.append((west + 360, 180)) }
            if east > 180 { ranges.append((-180, east - 360)) }
            return cells(south: south, north: north, lonRanges: ranges)
        }
    }

    private static func cells(south: Double, north: Double, lonRanges: [(Double, Double)]) -> Set<Cell>? {
        let rows = Int(floor(min(north, 89.999_999))) - Int(floor(max(south, -90))) + 1
        var total = 0
        for (west, east) in lonRanges { total += rows * (Int(floor(east)) - Int(floor(west)) + 1) }
        guard total <= maxCellsPerSubscription else { return nil }
        var result = Set<Cell>()
        for (west, east) in lonRanges {
            for latIndex in Int(floor(max(south, -90)))...Int(floor(min(north, 89.999_999))) {
                for lonIndex in Int(floor(west))...Int(floor(east)) {
                    result.insert(cell(lat: Double(latIndex) + 0.5, lon: Double(lonIndex) + 0.5))
                }
            }
        }
        return result
    }
}
