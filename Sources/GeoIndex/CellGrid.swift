import Foundation

/// A fixed latitude/longitude grid: which cells a box or a circle may touch.
/// Conservative by construction; the callers refine every candidate exactly.
struct CellGrid: Sendable {
    static let cellDegrees = 0.05
    static let rows = Int((180 / cellDegrees).rounded())
    static let columns = Int((360 / cellDegrees).rounded())

    /// A cell's key: row-major, so one row's cells are contiguous.
    static func key(row: Int, column: Int) -> Int { row * columns + column }

    static func row(lat: Double) -> Int {
        min(rows - 1, max(0, Int(((lat + 90) / cellDegrees).rounded(.down))))
    }

    static func column(lon: Double) -> Int {
        min(columns - 1, max(0, Int(((lon + 180) / cellDegrees).rounded(.down))))
    }

    static func key(lat: Double, lon: Double) -> Int { key(row: row(lat: lat), column: column(lon: lon)) }

    /// The cells of a set of rows, each row the same column ranges.
    struct Cover {
        var rows: ClosedRange<Int>
        var columnRanges: [ClosedRange<Int>]

        var cellCount: Int { rows.count * columnRanges.reduce(0) { $0 + $1.count } }

        func forEachKey(_ body: (Int) -> Void) {
            for row in rows {
                for range in columnRanges {
                    for column in range { body(CellGrid.key(row: row, column: column)) }
                }
            }
        }
    }

    /// The cover of a box. The columns of ±180 always come together, as one meridian.
    static func cover(of box: GeoBox) -> Cover {
        let rowRange = row(lat: box.south)...row(lat: box.north)
        var ranges: [ClosedRange<Int>] = []
        for part in box.nonCrossingParts {
            ranges.append(column(lon: part.west)...column(lon: part.east))
        }
        return Cover(rows: rowRange, columnRanges: withAntimeridianTwins(ranges))
    }

    /// The cover of every point within `radius` metres of (lat, lon), with a margin so rounding
    /// never drops a point on the circle.
    static func cover(lat: Double, lon: Double, radius: Double) -> Cover {
        let angular = radius / Geodesy.earthRadiusMeters
        let margin = 1e-9
        let dLat = Geodesy.degrees(angular) * (1 + margin) + margin
        let south = lat - dLat, north = lat + dLat
        let rowRange = row(lat: south)...row(lat: north)
        if south <= -90 || north >= 90 {
            return Cover(rows: rowRange, columnRanges: [0...(columns - 1)])
        }
        let ratio = sin(angular) / cos(Geodesy.radians(lat))
        guard ratio < 1 else { return Cover(rows: rowRange, columnRanges: [0...(columns - 1)]) }
        let dLon = Geodesy.degrees(asin(ratio)) * (1 + margin) + margin
        if dLon >= 180 { return Cover(rows: rowRange, columnRanges: [0...(columns - 1)]) }
        let west = lon - dLon, east = lon + dLon
        var ranges: [ClosedRange<Int>] = []
        if west < -180 {
            ranges.append(column(lon: west + 360)...(columns - 1))
            ranges.append(0...column(lon: east))
        } else if east > 180 {
            ranges.append(column(lon: west)...(columns - 1))
            ranges.append(0...column(lon: east - 360))
        } else {
            ranges.append(column(lon: west)...column(lon: east))
        }
        return Cover(rows: rowRange, columnRanges: withAntimeridianTwins(ranges))
    }

    /// Adds the other name of the antimeridian's column where a range touches one, then merges
    /// overlapping ranges so no cell is visited twice.
    private static func withAntimeridianTwins(_ ranges: [ClosedRange<Int>]) -> [ClosedRange<Int>] {
        var all = ranges
        if ranges.contains(where: { $0.lowerBound == 0 }) { all.append((columns - 1)...(columns - 1)) }
        if ranges.contains(where: { $0.upperBound == columns - 1 }) { all.append(0...0) }
        all.sort { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<Int>] = []
        for range in all {
            if let last = merged.last, range.lowerBound <= last.upperBound + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}
