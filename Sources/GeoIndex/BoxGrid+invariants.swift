/// The box grid's invariants, checked by the tests after every kind of change.
extension BoxGrid {
    /// Every violation found; empty when the grid is sound.
    public func invariantViolations() -> [String] {
        var problems: [String] = []
        var counted = [Int32](repeating: 0, count: cellsPerLevel.count)
        for (key, entries) in cells {
            counted[GridLevels.level(ofKey: key)] += 1
            if entries.isEmpty { problems.append("cell \(key) is empty but filed") }
            if Set(entries.map(\.handle)).count != entries.count { problems.append("cell \(key) holds a handle twice") }
            for entry in entries {
                guard let placement = Self.levels.placement(of: entry.box),
                    placement.cells.contains(where: { GridLevels.key(level: placement.level, row: $0.row, column: $0.column) == key })
                else {
                    problems.append("handle \(entry.handle) is in cell \(key), which its box is not filed in")
                    continue
                }
                for cell in placement.cells where cells[GridLevels.key(level: placement.level, row: cell.row, column: cell.column)]?.contains(where: { $0.handle == entry.handle }) != true {
                    problems.append("handle \(entry.handle) is missing from a cell of its box")
                }
            }
        }
        if counted != cellsPerLevel { problems.append("cells a size \(cellsPerLevel), found \(counted)") }
        return problems
    }
}
