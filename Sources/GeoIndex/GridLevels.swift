import Foundation

/// Latitude/longitude grids of a few cell sizes, and where a box is filed among them: in the
/// finest size whose cells it spans at most that size's `maxSpans` of on each axis. A point
/// then lies in one cell of each size, and a box holding it is filed in one of those cells.
struct GridLevels: Sendable {
    /// Cell sides in degrees, finest first.
    let cellDegrees: [Double]
    /// For each size, how many cells a box may span on each axis.
    let maxSpans: [Int]

    init(cellDegrees: [Double], maxSpan: Int) {
        self.init(cellDegrees: cellDegrees, maxSpans: cellDegrees.map { _ in maxSpan })
    }

    init(cellDegrees: [Double], maxSpans: [Int]) {
        precondition(cellDegrees.count == maxSpans.count, "a span for every size")
        (self.cellDegrees, self.maxSpans) = (cellDegrees, maxSpans)
    }

    /// Where a box is filed: its size and the cells (row, column) of that size, or nil when it
    /// spans too many even of the coarsest.
    func placement(of box: GeoBox) -> (level: Int, cells: [(row: Int, column: Int)])? {
        let parts = box.nonCrossingParts
        for level in cellDegrees.indices {
            let maxSpan = maxSpans[level]
            let rows = row(box.south, level)...row(box.north, level)
            guard rows.count <= maxSpan else { continue }
            var columns: [Int] = []
            var fits = true
            for part in parts {
                // A part on the antimeridian alone holds only points filed in the first column.
                guard part.west < 180 else {
                    columns.append(0)
                    continue
                }
                let first = column(part.west, level), last = column(min(part.east, 180 - 1e-9), level)
                guard first <= last else { continue }
                // Too many columns are not listed: a wide box would list thousands at fine sizes.
                guard last - first < maxSpan else {
                    fits = false
                    break
                }
                columns += Array(first...last)
                // Longitude 180 is -180: a box reaching it holds points filed in the first column.
                if part.east >= 180 { columns.append(0) }
            }
            let unique = Set(columns).sorted()
            guard fits, unique.count <= maxSpan else { continue }
            return (level, rows.flatMap { row in unique.map { (row, $0) } })
        }
        return nil
    }

    func row(_ lat: Double, _ level: Int) -> Int {
        let size = cellDegrees[level]
        let rows = Int((180 / size).rounded(.up))
        return min(max(Int(((lat + 90) / size).rounded(.down)), 0), rows - 1)
    }

    func column(_ lon: Double, _ level: Int) -> Int {
        let size = cellDegrees[level]
        let columns = Int((360 / size).rounded(.up))
        let normalized = lon >= 180 ? lon - 360 : lon
        return min(max(Int(((normalized + 180) / size).rounded(.down)), 0), columns - 1)
    }

    static func key(level: Int, row: Int, column: Int) -> Int64 {
        Int64(level) << 48 | Int64(row) << 24 | Int64(column)
    }

    static func level(ofKey key: Int64) -> Int { Int(key >> 48) }
}
