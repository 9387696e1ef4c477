/// An R-tree over posts as unit vectors, bulk-loaded by sort-tile-recursive packing, with
/// inserts (split by the widest axis) and removals (condensing underfull nodes).
///
/// Every node carries a `NodeSummary`, so a query prunes by distance (chord to the node's box,
/// an exact lower bound), by time and by tag, and walks best-first: nearest first, or newest
/// first, stopping as soon as the page is full. Posts live column-wise in slots; the tree holds
/// slot numbers.
public struct RTreeIndex: Sendable {
    static let maxEntries = 16
    static let minEntries = 6

    // Posts, column-wise, by slot.
    var columns = PostColumns()
    var slotOfId: [Int64: Int32] = [:]
    var leafOfSlot: [Int32] = []

    // Nodes, by node number. `boxes` mirrors `summaries[n].box`: the nearest-first walk reads
    // only boxes, and 48 bytes a child instead of a whole summary keeps it in cache.
    var summaries: [NodeSummary] = []
    var boxes: [VectorBox] = []
    var entries: [[Int32]] = []
    var isLeaf: [Bool] = []
    var parent: [Int32] = []
    var freeNodes: [Int32] = []
    var root: Int32 = -1
    /// The highest tag id stored: below 64, a node's tag mask is exact.
    var highestTag: TagID = 0

    public init() {}

    /// Builds the tree from scratch: one sort per axis and level, every node well filled.
    /// Posts are stored in leaf order, so a leaf's posts sit side by side in memory. Of posts
    /// sharing an id, the last one given is kept.
    public init(bulk posts: [IndexedPost]) {
        // The id map is needed anyway; filled first, it also finds the duplicates.
        slotOfId.reserveCapacity(posts.count)
        for (index, post) in posts.enumerated() { slotOfId[post.id] = Int32(index) }
        guard !slotOfId.isEmpty else { return }
        let distinct = slotOfId.count == posts.count ? posts : posts.enumerated().filter { slotOfId[$0.element.id] == Int32($0.offset) }.map(\.element)
        let vectors = distinct.map { UnitVector(lat: $0.lat, lon: $0.lon) }
        let leafGroups = Self.packSortTileRecursive(Array(distinct.indices), centres: vectors)
        columns.reserveCapacity(distinct.count)
        leafOfSlot = Array(repeating: -1, count: distinct.count)
        var level: [Int32] = []
        var centres: [UnitVector] = []
        for group in leafGroups {
            let leaf = newNode(leaf: true)
            var summary = NodeSummary()
            var slots: [Int32] = []
            slots.reserveCapacity(group.count)
            for index in group {
                let post = distinct[index]
                let slot = columns.append(post, vector: vectors[index])
                slotOfId[post.id] = slot
                highestTag = max(highestTag, post.tag)
                slots.append(slot)
                leafOfSlot[Int(slot)] = leaf
                summary.add(post, vectors[index])
            }
            entries[Int(leaf)] = slots
            summaries[Int(leaf)] = summary
            boxes[Int(leaf)] = summary.box
            level.append(leaf)
            centres.append(summary.box.centre)
        }
        while level.count > 1 {
            var nextLevel: [Int32] = []
            var nextCentres: [UnitVector] = []
            for group in Self.packSortTileRecursive(Array(level.indices), centres: centres) {
                let node = newNode(leaf: false)
                entries[Int(node)] = group.map { level[$0] }
                for child in entries[Int(node)] { parent[Int(child)] = node }
                recomputeSummary(node)
                nextLevel.append(node)
                nextCentres.append(summaries[Int(node)].box.centre)
            }
            level = nextLevel
            centres = nextCentres
        }
        root = level[0]
    }

    public var count: Int { slotOfId.count }

    public func contains(id: Int64) -> Bool { slotOfId[id] != nil }

    // MARK: - Changes

    public mutating func insert(_ post: IndexedPost) {
        remove(id: post.id)
        let slot = columns.append(post)
        slotOfId[post.id] = slot
        highestTag = max(highestTag, post.tag)
        if Int(slot) >= leafOfSlot.count { leafOfSlot.append(-1) }
        insert(slot: slot)
    }

    @discardableResult
    public mutating func remove(id: Int64) -> IndexedPost? {
        guard let slot = slotOfId.removeValue(forKey: id) else { return nil }
        let removed = columns.post(at: slot)
        let leaf = leafOfSlot[Int(slot)]
        entries[Int(leaf)].removeAll { $0 == slot }
        leafOfSlot[Int(slot)] = -1
        columns.free(slot)
        condense(from: leaf)
        return removed
    }

    private mutating func insert(slot: Int32) {
        let post = columns.post(at: slot)
        let vector = UnitVector(lat: post.lat, lon: post.lon)
        if root < 0 { root = newNode(leaf: true) }
        var node = root
        while !isLeaf[Int(node)] {
            summaries[Int(node)].add(post, vector)
            boxes[Int(node)] = summaries[Int(node)].box
            node = chooseChild(of: node, for: vector)
        }
        summaries[Int(node)].add(post, vector)
        boxes[Int(node)] = summaries[Int(node)].box
        entries[Int(node)].append(slot)
        leafOfSlot[Int(slot)] = node
        while entries[Int(node)].count > Self.maxEntries {
            node = split(node)
        }
    }

    /// The child whose box grows least (then the smaller one) to take the vector.
    private func chooseChild(of node: Int32, for vector: UnitVector) -> Int32 {
        var best: Int32 = -1
        var bestGrowth = Double.infinity, bestMargin = Double.infinity
        var point = VectorBox()
        point.add(vector)
        for child in entries[Int(node)] {
            let box = summaries[Int(child)].box
            let margin = box.margin
            let growth = box.union(point).margin - margin
            if growth < bestGrowth || (growth == bestGrowth && margin < bestMargin) {
                (best, bestGrowth, bestMargin) = (child, growth, margin)
            }
        }
        return best
    }

    /// Splits an overfull node in two halves along its widest axis; returns the parent, which
    /// may now be overfull itself.
    private mutating func split(_ node: Int32) -> Int32 {
        let leaf = isLeaf[Int(node)]
        let centres = entries[Int(node)].map { child in
            if leaf {
                let post = columns.post(at: child)
                return (child, UnitVector(lat: post.lat, lon: post.lon))
            }
            return (child, summaries[Int(child)].box.centre)
        }
        let box = summaries[Int(node)].box
        let spreads = [box.maxX - box.minX, box.maxY - box.minY, box.maxZ - box.minZ]
        let axis = spreads.firstIndex(of: spreads.max()!)!
        let sorted = centres.sorted { $0.1[axis] < $1.1[axis] }.map(\.0)
        let half = sorted.count / 2
        let sibling = newNode(leaf: leaf)
        entries[Int(node)] = Array(sorted[..<half])
        entries[Int(sibling)] = Array(sorted[half...])
        for child in entries[Int(sibling)] {
            if leaf { leafOfSlot[Int(child)] = sibling } else { parent[Int(child)] = sibling }
        }
        recomputeSummary(node)
        recomputeSummary(sibling)
        if node == root {
            let newRoot = newNode(leaf: false)
            entries[Int(newRoot)] = [node, sibling]
            parent[Int(node)] = newRoot
            parent[Int(sibling)] = newRoot
            recomputeSummary(newRoot)
            root = newRoot
            return newRoot
        }
        let up = parent[Int(node)]
        entries[Int(up)].append(sibling)
        parent[Int(sibling)] = up
        return up
    }

    /// After a removal: recomputes summaries up to the root, dissolving underfull nodes and
    /// reinserting their posts, and shortens the tree when the root has one child.
    private mutating func condense(from leaf: Int32) {
        var orphans: [Int32] = []
        var node = leaf
        while node != root {
            let up = parent[Int(node)]
            if entries[Int(node)].count < Self.minEntries {
                entries[Int(up)].removeAll { $0 == node }
                collectSlots(under: node, into: &orphans)
                release(node)
            } else {
                recomputeSummary(node)
            }
            node = up
        }
        recomputeSummary(root)
        while !isLeaf[Int(root)], entries[Int(root)].count == 1 {
            let only = entries[Int(root)][0]
            release(root)
            root = only
            parent[Int(root)] = -1
        }
        if isLeaf[Int(root)], entries[Int(root)].isEmpty, orphans.isEmpty {
            release(root)
            root = -1
        }
        for slot in orphans { insert(slot: slot) }
    }

    private mutating func collectSlots(under node: Int32, into slots: inout [Int32]) {
        if isLeaf[Int(node)] {
            slots += entries[Int(node)]
        } else {
            for child in entries[Int(node)] {
                collectSlots(under: child, into: &slots)
                release(child)
            }
        }
    }

    private mutating func newNode(leaf: Bool) -> Int32 {
        if let reused = freeNodes.popLast() {
            entries[Int(reused)] = []
            isLeaf[Int(reused)] = leaf
            parent[Int(reused)] = -1
            summaries[Int(reused)] = NodeSummary()
            boxes[Int(reused)] = VectorBox()
            return reused
        }
        summaries.append(NodeSummary())
        boxes.append(VectorBox())
        entries.append([])
        isLeaf.append(leaf)
        parent.append(-1)
        return Int32(summaries.count - 1)
    }

    private mutating func release(_ node: Int32) {
        entries[Int(node)] = []
        summaries[Int(node)] = NodeSummary()
        boxes[Int(node)] = VectorBox()
        freeNodes.append(node)
    }

    mutating func recomputeSummary(_ node: Int32) {
        var summary = NodeSummary()
        if isLeaf[Int(node)] {
            for slot in entries[Int(node)] {
                let post = columns.post(at: slot)
                summary.add(post, UnitVector(lat: post.lat, lon: post.lon))
            }
        } else {
            for child in entries[Int(node)] { summary.add(summaries[Int(child)]) }
        }
        summaries[Int(node)] = summary
        boxes[Int(node)] = summary.box
    }

    /// Sort-tile-recursive packing: sort by x into slabs, each by y into slabs, each by z into
    /// runs of at most 16; sizes are spread evenly so every node is well filled.
    ///
    /// Each sort is of plain integers: the coordinate, as a single-precision float made
    /// order-preserving, in the high half and the item in the low half. Sorting item numbers
    /// through a comparison closure took most of the bulk build; the float only decides tiling,
    /// never a query's answer (node boxes are computed from the exact vectors).
    static func packSortTileRecursive(_ items: [Int], centres: [UnitVector]) -> [[Int]] {
        func pack(_ items: ArraySlice<Int>, axis: Int) -> [[Int]] {
            var keyed = items.map { item -> UInt64 in
                let bits = Float(centres[item][axis]).bitPattern
                let ordered = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
                return UInt64(ordered) << 32 | UInt64(UInt32(item))
            }
            keyed.sort()
            let sorted = keyed.map { Int(UInt32(truncatingIfNeeded: $0)) }
            let nodesNeeded = (sorted.count + maxEntries - 1) / maxEntries
            if axis == 2 || nodesNeeded <= 1 { return evenChunks(sorted, count: nodesNeeded) }
            // Slabs per axis: the cube root of the nodes needed on x, the square root on y.
            let slabs = axis == 0 ? cbrt(nodesNeeded) : Int(Double(nodesNeeded).squareRoot().rounded(.up))
            return evenChunks(sorted, count: max(1, min(slabs, nodesNeeded))).flatMap { pack($0[...], axis: axis + 1) }
        }
        return pack(items[...], axis: 0)
    }

    static func cbrt(_ n: Int) -> Int { Int(Foundation.cbrt(Double(n)).rounded(.up)) }

    static func evenChunks(_ items: [Int], count: Int) -> [[Int]] {
        guard count > 1 else { return [items] }
        var chunks: [[Int]] = []
        var start = 0
        for k in 0..<count {
            let end = items.count * (k + 1) / count
            chunks.append(Array(items[start..<end]))
            start = end
        }
        return chunks
    }
}

import Foundation

extension VectorBox {
    var centre: UnitVector { UnitVector(x: (minX + maxX) / 2, y: (minY + maxY) / 2, z: (minZ + maxZ) / 2) }
}

extension UnitVector {
    init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    subscript(axis: Int) -> Double { axis == 0 ? x : (axis == 1 ? y : z) }
}
