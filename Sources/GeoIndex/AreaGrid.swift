import Foundation

/// Areas that neither the `CircleGrid` nor the `BoxGrid` takes (the boxes around circles too
/// large for the one or reaching a pole, boxes too large for the other, and any the caller keeps
/// out of them), filed under handles in cells of a few sizes. Each area goes into the finest
/// size whose cells it spans at most `maxSpan` of on each axis, so a point's candidates are the
/// handles of its one cell at each size: a small superset of the areas holding it, found in
/// time that does not grow with the areas elsewhere. The caller tests each candidate exactly.
public struct AreaGrid: Sendable {
    /// Cell sides in degrees, finest first; a 100 m circle fits the first, a 5 km one the second.
    static let levels = GridLevels(cellDegrees: [0.01, 0.05, 0.25, 1.25, 6.25, 31.25], maxSpan: 3)

    private var cells: [Int64: [Int32]] = [:]
    /// Areas too large for the coarsest cells (a hemisphere, a box around a pole).
    private var everywhere: [Int32] = []

    public init() {}

    public mutating func insert(_ handle: Int32, box: GeoBox) {
        guard let placement = Self.placement(of: box) else {
            everywhere.append(handle)
            return
        }
        for key in placement { cells[key, default: []].append(handle) }
    }

    /// Removes a handle filed with exactly this box.
    public mutating func remove(_ handle: Int32, box: GeoBox) {
        guard let placement = Self.placement(of: box) else {
            if let index = everywhere.firstIndex(of: handle) { everywhere.swapAt(index, everywhere.count - 1); everywhere.removeLast() }
            return
        }
        for key in placement {
            guard var handles = cells[key], let index = handles.firstIndex(of: handle) else { continue }
            handles.swapAt(index, handles.count - 1)
            handles.removeLast()
            cells[key] = handles.isEmpty ? nil : handles
        }
    }

    /// Calls `body` once for every handle whose cell holds the point (no handle twice).
    public func forEachCandidate(lat: Double, lon: Double, _ body: (Int32) -> Void) {
        for handle in everywhere { body(handle) }
        for level in Self.levels.cellDegrees.indices {
            let key = GridLevels.key(level: level, row: Self.levels.row(lat, level), column: Self.levels.column(lon, level))
            guard let handles = cells[key] else { continue }
            for handle in handles { body(handle) }
        }
    }

    /// The smallest box around a circle on the sphere; one reaching a pole spans every longitude.
    public static func box(aroundCircle lat: Double, lon: Double, radius: Double) -> GeoBox {
        // A hair wider than the exact bound, so rounding never leaves a point on the edge out.
        let angle = radius / Geodesy.earthRadiusMeters * 1.000_001 + 1e-9
        let degrees = angle * 180 / .pi
        let south = lat - degrees, north = lat + degrees
        guard south > -90, north < 90 else { return GeoBox(west: -180, south: max(south, -90), east: 180, north: min(north, 90)) }
        let spread = sin(angle) / cos(lat * .pi / 180)
        guard spread < 1 else { return GeoBox(west: -180, south: south, east: 180, north: north) }
        let halfWidth = asin(spread) * 180 / .pi
        guard halfWidth < 180 else { return GeoBox(west: -180, south: south, east: 180, north: north) }
        var west = lon - halfWidth, east = lon + halfWidth
        if west < -180 { west += 360 }
        if east > 180 { east -= 360 }
        return GeoBox(west: west, south: south, east: east, north: north)
    }

    /// The cells a box is filed in, or nil when it spans too many even of the coarsest.
    static func placement(of box: GeoBox) -> [Int64]? {
        levels.placement(of: box).map { placement in
            placement.cells.map { GridLevels.key(level: placement.level, row: $0.row, column: $0.column) }
        }
    }
}
