/// The circle grid's invariants, checked by the tests after every kind of change.
extension CircleGrid {
    /// Every violation found; empty when the grid is sound.
    public func invariantViolations() -> [String] {
        var problems: [String] = []
        var entriesSeen = 0
        var counted = [Int32](repeating: 0, count: cellsPerLevel.count)
        for (key, number) in cellNumbers.all {
            let cell = cells[Int(number)]
            counted[GridLevels.level(ofKey: key)] += 1
            if cell.key != key { problems.append("cell \(number) is filed under \(key) but says \(cell.key)") }
            if cell.entries.isEmpty { problems.append("cell \(number) is empty but filed") }
            if cell.blocks.count != (cell.entries.count + 7) / 8 { problems.append("cell \(number) has \(cell.blocks.count) blocks for \(cell.entries.count) entries") }
            for position in cell.entries.count..<(cell.blocks.count * 8) where cell.blocks[position / 8].limit[position % 8] != -.infinity {
                problems.append("cell \(number)'s empty lane \(position) can match")
            }
            if cell.handles.count != cell.entries.count { problems.append("cell \(number) has \(cell.handles.count) handles for \(cell.entries.count) entries") }
            for (position, handle) in cell.handles.enumerated() {
                entriesSeen += 1
                guard Int(handle) < filings.count, let filing = filings[Int(handle)] else {
                    problems.append("cell \(number) holds handle \(handle), which is not filed")
                    continue
                }
                if filing.since > cell.latestSince { problems.append("cell \(number) holds a circle made after its latest") }
                let back = (0..<Int(filing.count)).filter { filing.cells[$0] == number && filing.positions[$0] == Int32(position) }
                if back.count != 1 { problems.append("handle \(handle) does not point back to cell \(number) at \(position)") }
                if cell.blocks[position / 8].limit[position % 8] != Float(Self.squaredChord(radius: filing.radius)) {
                    problems.append("cell \(number) at \(position) has another limit than handle \(handle)'s circle")
                }
            }
        }
        let filed = filings.reduce(0) { $0 + Int($1?.count ?? 0) }
        if filed != entriesSeen { problems.append("\(filed) entries filed, \(entriesSeen) in cells") }
        if counted != cellsPerLevel { problems.append("cells a size \(cellsPerLevel), found \(counted)") }
        return problems
    }
}
