import IndexIntrinsics

extension CircleGrid {
    /// Appends the key of every circle holding (lat, lon) that was made at or before `time` and
    /// whose mask shares a bit with `mask`, each once.
    public func appendMatches(lat: Double, lon: Double, time: Int64, mask: UInt64, to keys: inout [Int64]) {
        let point = UnitVector(lat: lat, lon: lon)
        let levels = Self.levels
        // A cell's matches as position × 2 (+ 1 when single precision was sure): the scan asks
        // for each one's entry as it finds it and reads them all afterwards, so the reads wait
        // on memory together rather than one by one.
        var found: [UInt32] = []
        found.reserveCapacity(4096)
        for level in levels.cellDegrees.indices {
            let key = GridLevels.key(level: level, row: levels.row(lat, level), column: levels.column(lon, level))
            guard let number = cellNumbers[key] else { continue }
            let cell = cells[Int(number)]
            found.removeAll(keepingCapacity: true)
            Self.scan(cell, point: point, margin: Self.absoluteMargin[level], into: &found)
            let checksSince = time < cell.latestSince
            cell.entries.withUnsafeBufferPointer { entries in
                for item in found {
                    let position = Int(item >> 1)
                    let entry = entries[position]
                    guard entry.mask & mask != 0 else { continue }
                    if checksSince || item & 1 == 0 {
                        let handle = cell.handles[position]
                        if checksSince, filings[Int(handle)]!.since > time { continue }
                        if item & 1 == 0, !holds(handle, lat: lat, lon: lon) { continue }
                    }
                    keys.append(entry.key)
                }
            }
        }
    }

    /// The positions of a cell's entries whose circles may hold the point, marked where sure.
    private static func scan(_ cell: Cell, point: UnitVector, margin: Float, into found: inout [UInt32]) {
        let (x, y, z) = (
            SIMD8<Float>(repeating: Float(point.x - cell.anchor.x)), SIMD8<Float>(repeating: Float(point.y - cell.anchor.y)),
            SIMD8<Float>(repeating: Float(point.z - cell.anchor.z)))
        let absolute = SIMD8<Float>(repeating: margin)
        cell.blocks.withUnsafeBufferPointer { blocks in
            cell.entries.withUnsafeBufferPointer { entries in
                let base = UnsafeRawPointer(entries.baseAddress)
                for index in blocks.indices {
                    let block = blocks[index]
                    let dx = block.x - x, dy = block.y - y, dz = block.z - z
                    let chord = dx * dx + dy * dy + dz * dz
                    let maybe = chord .<= block.limit * (1 + relativeMargin) + absolute
                    guard any(maybe) else { continue }
                    let surely = chord .< block.limit * (1 - relativeMargin) - absolute
                    var lanes = UInt32(SIMD8<Int32>(repeating: 0).replacing(with: laneBits, where: maybe).wrappedSum())
                    let sure = UInt32(SIMD8<Int32>(repeating: 0).replacing(with: laneBits, where: surely).wrappedSum())
                    while lanes != 0 {
                        let lane = UInt32(lanes.trailingZeroBitCount)
                        lanes &= lanes &- 1
                        let position = UInt32(truncatingIfNeeded: index) &* 8 &+ lane
                        index_prefetch(base! + Int(position) &* MemoryLayout<Entry>.stride)
                        found.append(position << 1 | (sure >> lane) & 1)
                    }
                }
            }
        }
    }

    static let laneBits = SIMD8<Int32>(1, 2, 4, 8, 16, 32, 64, 128)

    /// The definition, for a point too near a circle's edge for single precision to decide.
    func holds(_ handle: Int32, lat: Double, lon: Double) -> Bool {
        guard let filing = filings[Int(handle)] else { return false }
        return Geodesy.distance(lat1: filing.lat, lon1: filing.lon, lat2: lat, lon2: lon) <= filing.radius
    }
}
