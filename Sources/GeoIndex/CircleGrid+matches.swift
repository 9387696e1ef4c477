import IndexIntrinsics

extension CircleGrid {
    /// The key of every circle holding (lat, lon) that was made at or before `time` and whose
    /// mask shares a bit with `mask`, each once.
    public func matches(lat: Double, lon: Double, time: Int64, mask: UInt64) -> [Int64] {
        let point = UnitVector(lat: lat, lon: lon)
        let levels = Self.levels
        // The point's cell of each size that has cells, each step asking for all cells' next
        // lines before reading any, so their misses overlap; their entries bound the matches,
        // and the keys are written straight into an array of that capacity.
        var keys: [(level: Int, key: Int64)] = []
        keys.reserveCapacity(levels.cellDegrees.count)
        for level in levels.cellDegrees.indices where cellsPerLevel[level] > 0 {
            let key = GridLevels.key(level: level, row: levels.row(lat, level), column: levels.column(lon, level))
            cellNumbers.prefetch(key)
            keys.append((level, key))
        }
        var found: [(level: Int, number: Int32)] = []
        found.reserveCapacity(keys.count)
        for (level, key) in keys {
            if let number = cellNumbers[key] { found.append((level, number)) }
        }
        for (_, number) in found { cells.prefetch(from: Int(number)) }
        var bound = 0
        for (_, number) in found {
            bound += cells[Int(number)].entries.count
            cells[Int(number)].blocks.prefetch(from: 0, count: 2)
        }
        return [Int64](unsafeUninitializedCapacity: bound) { keys, count in
            cells.withUnsafeBufferPointer { cells in
                for (level, number) in found {
                    count = scan(cells[Int(number)], point: point, margin: Self.absoluteMargin[level], lat: lat, lon: lon, time: time, mask: mask, into: keys, from: count)
                }
            }
        }
    }

    /// Writes the keys of a cell's matches into `keys` from `start`; returns where they end.
    /// Each block's lanes are judged together and the entries read in order, asked for sixteen
    /// blocks (about a memory latency of scanning) ahead.
    private func scan(
        _ cell: Cell, point: UnitVector, margin: Float, lat: Double, lon: Double, time: Int64, mask: UInt64,
        into keys: UnsafeMutableBufferPointer<Int64>, from start: Int
    ) -> Int {
        let (x, y, z) = (
            SIMD8<Float>(repeating: Float(point.x - cell.anchor.x)), SIMD8<Float>(repeating: Float(point.y - cell.anchor.y)),
            SIMD8<Float>(repeating: Float(point.z - cell.anchor.z)))
        let absolute = SIMD8<Float>(repeating: margin)
        let bits = Self.laneBits
        let (widened, narrowed) = (1 + Self.relativeMargin, 1 - Self.relativeMargin)
        let checksSince = time < cell.latestSince
        var count = start
        cell.blocks.withUnsafeBufferPointer { blocks in
            cell.entries.withUnsafeBufferPointer { entries in
                guard let first = entries.baseAddress else { return }
                let base = UnsafeRawPointer(first)
                let end = base + entries.count * MemoryLayout<Entry>.stride
                for index in blocks.indices {
                    // A block's entries fill two lines.
                    let ahead = base + (index &+ 16) &* 8 &* MemoryLayout<Entry>.stride
                    if ahead < end {
                        index_prefetch(ahead)
                        index_prefetch(ahead + 64)
                    }
                    let block = blocks[index]
                    let dx = block.x - x, dy = block.y - y, dz = block.z - z
                    let chord = dx * dx + dy * dy + dz * dz
                    let maybe = chord .<= block.limit * widened + absolute
                    guard any(maybe) else { continue }
                    let surely = chord .< block.limit * narrowed - absolute
                    var lanes = UInt32(SIMD8<Int32>(repeating: 0).replacing(with: bits, where: maybe).wrappedSum())
                    let sure = UInt32(SIMD8<Int32>(repeating: 0).replacing(with: bits, where: surely).wrappedSum())
                    while lanes != 0 {
                        let lane = lanes.trailingZeroBitCount
                        lanes &= lanes &- 1
                        let position = index &* 8 &+ lane
                        let entry = entries[position]
                        let meets = entry.mask & mask != 0
                        let isSure = (sure >> lane) & 1 == 1
                        if isSure, !checksSince {
                            // Written always, kept only when the masks meet: no branch to mispredict.
                            keys[count] = entry.key
                            count &+= meets ? 1 : 0
                        } else if meets, admits(cell.handles[position], time: time, checksSince: checksSince, isSure: isSure, lat: lat, lon: lon) {
                            keys[count] = entry.key
                            count &+= 1
                        }
                    }
                }
            }
        }
        return count
    }

    static let laneBits = SIMD8<Int32>(1, 2, 4, 8, 16, 32, 64, 128)

    /// Whether a candidate was made in time and holds the point, measured by the definition
    /// when single precision was not sure.
    private func admits(_ handle: Int32, time: Int64, checksSince: Bool, isSure: Bool, lat: Double, lon: Double) -> Bool {
        guard let filing = filings[Int(handle)] else { return false }
        if checksSince, filing.since > time { return false }
        return isSure || Geodesy.distance(lat1: filing.lat, lon1: filing.lon, lat2: lat, lon2: lon) <= filing.radius
    }
}
