import Foundation

/// Boxes filed for "which boxes hold this point", with everything a match needs kept inline in
/// the cells: a point tests its cells' boxes in place with `GeoBox.contains` itself (so answers
/// are exact) and follows no handle to anything stored elsewhere.
///
/// Each box goes into the finest cell size whose cells it spans at most two of on each axis,
/// and into each of those (at most four) cells; a point then lies in one cell of each size, and
/// a box holding it is in one of those cells, once.
public struct BoxGrid: Sendable {
    /// Cell sides in degrees, finest first: 0.001° (110 m) up to about 65°, each twice the last.
    static let levels = GridLevels(cellDegrees: (0..<17).map { 0.001 * pow(2, Double($0)) }, maxSpan: 2)

    /// A box as filed, with what a match reports and filters on, as `CircleGrid` has them.
    struct Entry: Sendable {
        var box: GeoBox
        var key: Int64
        var mask: UInt64
        var since: Int64
        var handle: Int32
    }

    var cells: [Int64: [Entry]] = [:]
    /// How many cells each size has, so a point looks up only the sizes that hold boxes.
    var cellsPerLevel = [Int32](repeating: 0, count: BoxGrid.levels.cellDegrees.count)

    public init() {}

    /// Files a box under `handle` (not already filed), matched by points at or after `since`
    /// whose mask shares a bit with `mask`, reported as `key`. Returns false, filing nothing,
    /// for a box too large for the coarsest cells: the caller keeps it.
    public mutating func insert(_ handle: Int32, box: GeoBox, key: Int64, since: Int64, mask: UInt64) -> Bool {
        guard let placement = Self.levels.placement(of: box) else { return false }
        let entry = Entry(box: box, key: key, mask: mask, since: since, handle: handle)
        for cell in placement.cells {
            let cellKey = GridLevels.key(level: placement.level, row: cell.row, column: cell.column)
            if cells[cellKey] == nil { cellsPerLevel[placement.level] += 1 }
            cells[cellKey, default: []].append(entry)
        }
        return true
    }

    /// Forgets the box filed under `handle` with exactly this box; returns false, doing nothing,
    /// when there is none.
    @discardableResult
    public mutating func remove(_ handle: Int32, box: GeoBox) -> Bool {
        guard let placement = Self.levels.placement(of: box) else { return false }
        var removed = false
        for cell in placement.cells {
            let cellKey = GridLevels.key(level: placement.level, row: cell.row, column: cell.column)
            guard let index = cells[cellKey]?.firstIndex(where: { $0.handle == handle }) else { continue }
            let last = cells[cellKey]!.count - 1
            cells[cellKey]!.swapAt(index, last)
            cells[cellKey]!.removeLast()
            if last == 0 {
                cells[cellKey] = nil
                cellsPerLevel[placement.level] -= 1
            }
            removed = true
        }
        return removed
    }

    /// The key of every box holding (lat, lon) that was made at or before `time` and whose mask
    /// shares a bit with `mask`, each once.
    public func matches(lat: Double, lon: Double, time: Int64, mask: UInt64) -> [Int64] {
        let levels = Self.levels
        var found: [[Entry]] = []
        for level in levels.cellDegrees.indices where cellsPerLevel[level] > 0 {
            let cellKey = GridLevels.key(level: level, row: levels.row(lat, level), column: levels.column(lon, level))
            if let entries = cells[cellKey] { found.append(entries) }
        }
        // Longitude ±180 has two names, which `GeoBox.contains` itself decides.
        let onAntimeridian = abs(lon) == 180
        return [Int64](unsafeUninitializedCapacity: found.reduce(0) { $0 + $1.count }) { keys, count in
            for entries in found {
                for entry in entries {
                    let box = entry.box
                    // `GeoBox.contains` without branches, for a longitude with one name.
                    let east = lon <= box.east, west = lon >= box.west
                    let inside = lat >= box.south && lat <= box.north && ((east && west) || (box.west > box.east && (east || west)))
                    let holds = onAntimeridian ? box.contains(lat: lat, lon: lon) : inside
                    keys[count] = entry.key
                    count += holds && entry.mask & mask != 0 && entry.since <= time ? 1 : 0
                }
            }
        }
    }
}
