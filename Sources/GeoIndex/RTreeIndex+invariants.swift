/// The R-tree's structural invariants, checked by the tests after every kind of change.
extension RTreeIndex {
    /// Every violation found; empty when the tree is sound.
    public func invariantViolations() -> [String] {
        var problems: [String] = []
        guard root >= 0 else {
            if !slotOfId.isEmpty { problems.append("no root but \(slotOfId.count) posts") }
            return problems
        }
        var leafDepths = Set<Int>()
        var postsSeen = 0
        func visit(_ node: Int32, depth: Int) -> NodeSummary {
            let children = entries[Int(node)]
            let isRoot = node == root
            if !isRoot, children.count < Self.minEntries || children.count > Self.maxEntries {
                problems.append("node \(node) holds \(children.count) entries")
            }
            if isRoot, children.count > Self.maxEntries { problems.append("root holds \(children.count) entries") }
            var recomputed = NodeSummary()
            if isLeaf[Int(node)] {
                leafDepths.insert(depth)
                for slot in children {
                    if leafOfSlot[Int(slot)] != node { problems.append("slot \(slot) points to leaf \(leafOfSlot[Int(slot)]), not \(node)") }
                    let post = columns.post(at: slot)
                    if slotOfId[post.id] != slot { problems.append("post \(post.id) is not found at slot \(slot)") }
                    recomputed.add(post, UnitVector(lat: post.lat, lon: post.lon))
                    postsSeen += 1
                }
            } else {
                if isRoot, children.count < 2 { problems.append("inner root with \(children.count) children") }
                for child in children {
                    if parent[Int(child)] != node { problems.append("node \(child) has parent \(parent[Int(child)]), not \(node)") }
                    let below = visit(child, depth: depth + 1)
                    if !summaries[Int(child)].box.contains(below.box) { problems.append("node \(child)'s box misses its contents") }
                    recomputed.add(below)
                }
            }
            let stored = summaries[Int(node)]
            if boxes[Int(node)] != stored.box { problems.append("node \(node)'s box mirror is stale") }
            if !stored.box.contains(recomputed.box) { problems.append("node \(node)'s box misses its children") }
            if stored.count != recomputed.count { problems.append("node \(node) counts \(stored.count), holds \(recomputed.count)") }
            if stored.minTime > recomputed.minTime || stored.maxTime < recomputed.maxTime { problems.append("node \(node)'s times miss") }
            if recomputed.tagMask & ~stored.tagMask != 0 { problems.append("node \(node)'s tag mask misses tags") }
            if stored.minFloor > recomputed.minFloor || stored.maxFloor < recomputed.maxFloor { problems.append("node \(node)'s floors miss") }
            if stored.minLat > recomputed.minLat || stored.maxLat < recomputed.maxLat || stored.minLon > recomputed.minLon
                || stored.maxLon < recomputed.maxLon
            {
                problems.append("node \(node)'s lat/lon bounds miss")
            }
            return recomputed
        }
        _ = visit(root, depth: 0)
        if leafDepths.count > 1 { problems.append("leaves at depths \(leafDepths.sorted())") }
        if postsSeen != slotOfId.count { problems.append("tree holds \(postsSeen) posts, map \(slotOfId.count)") }
        return problems
    }

    /// Bytes the index holds: columns, id map, tree (capacities, estimated for dictionaries).
    public var approximateBytes: Int {
        let nodeBytes = summaries.capacity * MemoryLayout<NodeSummary>.stride + boxes.capacity * MemoryLayout<VectorBox>.stride
            + entries.reduce(0) { $0 + $1.capacity * 4 + 32 } + isLeaf.capacity + parent.capacity * 4
        let mapBytes = slotOfId.capacity * (MemoryLayout<Int64>.stride + MemoryLayout<Int32>.stride) + leafOfSlot.capacity * 4
        return columns.bytes + nodeBytes + mapBytes
    }
}
