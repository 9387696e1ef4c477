/// The R-tree's structural invariants, checked by the tests after every kind of change.
extension RTreeIndex {
    /// Every violation found; empty when the tree is sound.
    public func invariantViolations() -> [String] {
        var problems: [String] = []
        guard root >= 0 else {
            if slots.count > 0 { problems.append("no root but \(slots.count) posts") }
            return problems + pyramidViolations()
        }
        var leafDepths = Set<Int>()
        var postsSeen = 0
        /// Checks a subtree; returns its recomputed summary and exact box.
        func visit(_ node: Int32, isLeaf: Bool, depth: Int) -> (NodeSummary, VectorBox) {
            let isRoot = node == root && isLeaf == rootIsLeaf
            var recomputed = NodeSummary()
            var box = VectorBox()
            let stored: NodeSummary
            if isLeaf {
                leafDepths.insert(depth)
                let fill = Int(leafFill[Int(node)])
                if !isRoot, fill < Self.minLeafFill || fill > Self.leafCapacity { problems.append("leaf \(node) holds \(fill) posts") }
                let base = Int(node) * Self.leafCapacity
                for slot in base..<(base + Self.leafCapacity) {
                    let id = columns.id[slot]
                    guard slot < base + fill else {
                        if id != -1 { problems.append("unused slot \(slot) of leaf \(node) holds post \(id)") }
                        continue
                    }
                    let post = columns.post(at: slot)
                    if slots.slot(of: id, ids: columns.id) != Int32(slot) { problems.append("post \(id) is not found at slot \(slot)") }
                    let vector = UnitVector(lat: post.lat, lon: post.lon)
                    recomputed.add(post, vector)
                    box.add(vector)
                    postsSeen += 1
                }
                stored = leafSummary[Int(node)]
            } else {
                let fill = Int(nodeFill[Int(node)])
                if !isRoot, fill < Self.minFanout || fill > Self.fanout { problems.append("node \(node) holds \(fill) children") }
                if isRoot, fill < 2 { problems.append("inner root with \(fill) children") }
                let leaves = childrenAreLeaves[Int(node)]
                for k in 0..<fill {
                    let child = children[Int(node) * Self.fanout + k]
                    let parent = leaves ? leafParent[Int(child)] : nodeParent[Int(child)]
                    if parent != node { problems.append("child \(child) of \(node) has parent \(parent)") }
                    let (below, belowBox) = visit(child, isLeaf: leaves, depth: depth + 1)
                    if !childBoxes[Int(node) * Self.fanout + k].contains(belowBox) { problems.append("child \(child)'s box misses its contents") }
                    recomputed.add(below)
                    box.add(belowBox)
                }
                stored = nodeSummary[Int(node)]
            }
            let name = "\(isLeaf ? "leaf" : "node") \(node)"
            if stored.count != recomputed.count { problems.append("\(name) counts \(stored.count), holds \(recomputed.count)") }
            if stored.minTime > recomputed.minTime || stored.maxTime < recomputed.maxTime { problems.append("\(name)'s times miss") }
            if recomputed.tagMask & ~stored.tagMask != 0 { problems.append("\(name)'s tag mask misses tags") }
            if stored.minExpires > recomputed.minExpires || stored.maxExpires < recomputed.maxExpires { problems.append("\(name)'s expiries miss") }
            if stored.maxLikes < recomputed.maxLikes { problems.append("\(name)'s likes bound is below a post's likes") }
            if stored.minFloor > recomputed.minFloor || stored.maxFloor < recomputed.maxFloor { problems.append("\(name)'s floors miss") }
            if stored.minLat > recomputed.minLat || stored.maxLat < recomputed.maxLat || stored.minLon > recomputed.minLon
                || stored.maxLon < recomputed.maxLon
            {
                problems.append("\(name)'s lat/lon bounds miss")
            }
            return (recomputed, box)
        }
        _ = visit(root, isLeaf: rootIsLeaf, depth: 0)
        if leafDepths.count > 1 { problems.append("leaves at depths \(leafDepths.sorted())") }
        if postsSeen != slots.count { problems.append("tree holds \(postsSeen) posts, map \(slots.count)") }
        problems += pyramidViolations()
        return problems
    }

    /// The pyramid's counts against a recount of the posts, at every zoom.
    func pyramidViolations() -> [String] {
        var recount = ClusterPyramid()
        for slot in 0..<columns.slotCount where columns.id[slot] >= 0 {
            let post = columns.post(at: slot)
            recount.add(post, UnitVector(lat: post.lat, lon: post.lon))
        }
        guard !pyramid.levels.isEmpty || recount.levels.isEmpty else { return ["the pyramid is empty but posts exist"] }
        var problems: [String] = []
        // Walked over the stored levels too: when every post is gone the recount has none,
        // and each stored count must then be zero.
        for zoom in 0..<max(recount.levels.count, pyramid.levels.count) {
            let stored = zoom < pyramid.levels.count ? pyramid.levels[zoom] : []
            let actual = zoom < recount.levels.count ? recount.levels[zoom] : []
            for key in 0..<max(stored.count, actual.count) {
                let storedCount = key < stored.count ? stored[key].count : 0
                let actualCount = key < actual.count ? actual[key].count : 0
                if storedCount != actualCount {
                    problems.append("pyramid zoom \(zoom) cell \(key) counts \(storedCount), holds \(actualCount)")
                }
            }
        }
        return problems
    }

    /// Bytes the index holds: columns, id map, tree (array capacities).
    public var approximateBytes: Int {
        let leafBytes = leafFill.capacity + leafParent.capacity * 4 + leafSummary.capacity * MemoryLayout<NodeSummary>.stride
            + freeLeaves.capacity * 4
        let nodeBytes = children.capacity * 4 + childBoxes.capacity * MemoryLayout<FloatBox>.stride + nodeFill.capacity
            + childrenAreLeaves.capacity + nodeParent.capacity * 4 + nodeSummary.capacity * MemoryLayout<NodeSummary>.stride
            + freeNodes.capacity * 4
        return columns.bytes + slots.bytes + leafBytes + nodeBytes + pyramid.bytes
    }
}
