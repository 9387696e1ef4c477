import Foundation

/// An R-tree over posts as unit vectors, bulk-loaded by sort-tile-recursive packing, with
/// inserts (split by the widest axis) and removals (condensing underfull nodes).
///
/// Laid out for the cache: a leaf owns a block of 32 slots in the post columns, so its posts
/// are contiguous in every column and need no list of their own; an inner node holds its
/// children's numbers and their boxes (single precision, rounded outwards) side by side. Every
/// node also has a `NodeSummary`, so a query prunes by distance, time, tag and floor, and walks
/// best-first: nearest first, or newest first, stopping as soon as the page is full.
public struct RTreeIndex: Sendable {
    static let leafCapacity = 32
    static let minLeafFill = 12
    static let fanout = 16
    static let minFanout = 6

    // Posts, column-wise: leaf L holds slots L*32 ..< L*32 + leafFill[L].
    var columns = PostColumns()
    var slots = SlotMap()

    // Leaves, by leaf number.
    var leafFill: [UInt8] = []
    var leafParent: [Int32] = []
    var leafSummary: [NodeSummary] = []
    var freeLeaves: [Int32] = []

    // Inner nodes, by node number: child k of node n is `children[n*16 + k]`, a leaf number if
    // `childrenAreLeaves[n]`, else a node number; its box is `childBoxes[n*16 + k]`.
    var children: [Int32] = []
    var childBoxes: [FloatBox] = []
    var nodeFill: [UInt8] = []
    var childrenAreLeaves: [Bool] = []
    var nodeParent: [Int32] = []
    var nodeSummary: [NodeSummary] = []
    var freeNodes: [Int32] = []

    /// A node number, or a leaf number when `rootIsLeaf`; -1 when empty.
    var root: Int32 = -1
    var rootIsLeaf = true
    /// The highest tag id stored: below 64, a node's tag mask is exact.
    var highestTag: TagID = 0
    /// Per-cell totals for zoomed-out clusters.
    var pyramid = ClusterPyramid()

    public init() {}

    public var count: Int { slots.count }

    public func contains(id: Int64) -> Bool { slots.slot(of: id, ids: columns.id) != nil }

    /// The stored post with this id, as the columns hold it.
    public func post(id: Int64) -> IndexedPost? { slots.slot(of: id, ids: columns.id).map { columns.post(at: Int($0)) } }

    /// The post a nearby hit found (its `slot`), before the index changes.
    public func post(atSlot slot: Int32) -> IndexedPost { columns.post(at: Int(slot)) }

    /// The payload at a hit's slot, without the rest of the post.
    public func payload(atSlot slot: Int32) -> Int32 { columns.payload[Int(slot)] }

    /// Starts loading the columns of the posts at these slots, so that reading them all after
    /// waits on memory once, not once a post.
    public func prefetchPosts(atSlots slots: some Sequence<Int32>) {
        for slot in slots { columns.prefetchPost(at: Int(slot)) }
    }

    // MARK: - Bulk build

    /// Builds the tree from scratch: one sort per axis and level, every node well filled.
    /// Of posts sharing an id, the last one given is kept.
    public init(bulk given: [IndexedPost]) {
        var posts = Self.lastOfEachId(given)
        // Posts from the database are on the grid already: copying millions of them costs more
        // than checking them.
        if !posts.allSatisfy(\.isOnFixedGrid) { posts = posts.map(\.onFixedGrid) }
        guard !posts.isEmpty else { return }
        let vectors = posts.map { UnitVector(lat: $0.lat, lon: $0.lon) }
        pyramid = ClusterPyramid(posts, vectors)
        let groups = Self.packTilesByTime(posts, centres: vectors)
        columns.reserveCapacity(groups.count * Self.leafCapacity)
        var level: [Int32] = []
        var boxes: [VectorBox] = []
        for group in groups {
            let leaf = newLeaf()
            let base = Int(leaf) * Self.leafCapacity
            var summary = NodeSummary()
            var box = VectorBox()
            for (k, index) in group.enumerated() {
                columns.write(posts[index], at: base + k)
                highestTag = max(highestTag, posts[index].tag)
                summary.add(posts[index], vectors[index])
                box.add(vectors[index])
            }
            leafFill[Int(leaf)] = UInt8(group.count)
            leafSummary[Int(leaf)] = summary
            level.append(leaf)
            boxes.append(box)
        }
        var levelIsLeaves = true
        while level.count > 1 {
            var nextLevel: [Int32] = []
            var nextBoxes: [VectorBox] = []
            for group in Self.packSortTileRecursive(Array(level.indices), centres: boxes.map(\.centre), capacity: Self.fanout) {
                let node = newNode(childrenAreLeaves: levelIsLeaves)
                var box = VectorBox()
                for index in group {
                    append(child: level[index], box: FloatBox(boxes[index]), to: node)
                    box.add(boxes[index])
                }
                recomputeSummary(ofNode: node)
                nextLevel.append(node)
                nextBoxes.append(box)
            }
            level = nextLevel
            boxes = nextBoxes
            levelIsLeaves = false
        }
        root = level[0]
        rootIsLeaf = levelIsLeaves
        slots = SlotMap(expected: posts.count)
        for slot in 0..<columns.slotCount where columns.id[slot] >= 0 {
            slots.insert(columns.id[slot], slot: Int32(slot), ids: columns.id)
        }
    }

    /// The posts with duplicates dropped, the last of each id kept. Posts loaded from the
    /// database come in ascending id order, which is checked in one pass without hashing.
    static func lastOfEachId(_ posts: [IndexedPost]) -> [IndexedPost] {
        if zip(posts, posts.dropFirst()).allSatisfy({ $0.id < $1.id }) { return posts }
        var lastIndex: [Int64: Int] = [:]
        lastIndex.reserveCapacity(posts.count)
        for (index, post) in posts.enumerated() { lastIndex[post.id] = index }
        return posts.enumerated().filter { lastIndex[$0.element.id] == $0.offset }.map(\.element)
    }

    // MARK: - Changes

    public mutating func insert(_ given: IndexedPost) {
        remove(id: given.id)
        let post = given.onFixedGrid
        let vector = UnitVector(lat: post.lat, lon: post.lon)
        pyramid.add(post, vector)
        place(post, vector)
    }

    /// Puts a post in a leaf (splitting as needed); the id map and the tree change, the
    /// pyramid does not (reinserted orphans are already counted there).
    private mutating func place(_ post: IndexedPost, _ vector: UnitVector) {
        highestTag = max(highestTag, post.tag)
        if root < 0 {
            root = newLeaf()
            rootIsLeaf = true
        }
        // Descend by least enlargement, widening boxes and summaries on the way down.
        var leaf = root
        if !rootIsLeaf {
            var node = root
            let point = FloatBox(vector)
            while true {
                nodeSummary[Int(node)].add(post, vector)
                let k = chooseChild(of: node, for: point)
                childBoxes[Int(node) * Self.fanout + k].add(point)
                let child = children[Int(node) * Self.fanout + k]
                if childrenAreLeaves[Int(node)] {
                    leaf = child
                    break
                }
                node = child
            }
        }
        let fill = Int(leafFill[Int(leaf)])
        if fill < Self.leafCapacity {
            let slot = Int(leaf) * Self.leafCapacity + fill
            columns.write(post, at: slot)
            slots.insert(post.id, slot: Int32(slot), ids: columns.id)
            leafFill[Int(leaf)] += 1
            leafSummary[Int(leaf)].add(post, vector)
            return
        }
        splitLeaf(leaf, adding: post)
    }

    @discardableResult
    public mutating func remove(id: Int64) -> IndexedPost? {
        guard let found = slots.remove(id, ids: columns.id) else { return nil }
        let slot = Int(found)
        let removed = columns.post(at: slot)
        pyramid.remove(removed, UnitVector(lat: removed.lat, lon: removed.lon))
        let leaf = Int32(slot / Self.leafCapacity)
        let last = Int(leaf) * Self.leafCapacity + Int(leafFill[Int(leaf)]) - 1
        if slot != last {
            slots.move(columns.id[last], to: Int32(slot), ids: columns.id)
            columns.move(from: last, to: slot)
        }
        columns.clear(last)
        leafFill[Int(leaf)] -= 1
        condense(from: leaf)
        return removed
    }

    /// Sets a post's like count; `false` if it is not stored. A rise is carried up the summaries
    /// at once (the popular walk must never under-estimate); a fall leaves them as upper bounds.
    @discardableResult
    public mutating func setLikes(id: Int64, to count: Int32) -> Bool {
        guard let found = slots.slot(of: id, ids: columns.id) else { return false }
        let slot = Int(found)
        columns.setLikes(count, at: slot)
        let leaf = slot / Self.leafCapacity
        guard leafSummary[leaf].maxLikes < count else { return true }
        leafSummary[leaf].maxLikes = count
        var node = leafParent[leaf]
        while node >= 0, nodeSummary[Int(node)].maxLikes < count {
            nodeSummary[Int(node)].maxLikes = count
            node = nodeParent[Int(node)]
        }
        return true
    }

    /// The child whose box grows least (then the smaller one) to take the point.
    private func chooseChild(of node: Int32, for point: FloatBox) -> Int {
        var best = 0
        var bestGrowth = Double.infinity, bestMargin = Double.infinity
        let base = Int(node) * Self.fanout
        for k in 0..<Int(nodeFill[Int(node)]) {
            let box = childBoxes[base + k]
            let margin = box.margin
            let growth = box.union(point).margin - margin
            if growth < bestGrowth || (growth == bestGrowth && margin < bestMargin) {
                (best, bestGrowth, bestMargin) = (k, growth, margin)
            }
        }
        return best
    }

    /// Splits a full leaf taking one more post: the 33 posts are halved along the widest axis
    /// of their vectors, one half staying, the other moving to a new leaf beside it.
    private mutating func splitLeaf(_ leaf: Int32, adding post: IndexedPost) {
        let base = Int(leaf) * Self.leafCapacity
        var posts = (base..<(base + Int(leafFill[Int(leaf)]))).map { columns.post(at: $0) }
        for moving in posts { slots.remove(moving.id, ids: columns.id) }
        posts.append(post)
        let vectors = posts.map { UnitVector(lat: $0.lat, lon: $0.lon) }
        var box = VectorBox()
        for v in vectors { box.add(v) }
        let spreads = [box.maxX - box.minX, box.maxY - box.minY, box.maxZ - box.minZ]
        let axis = spreads.firstIndex(of: spreads.max()!)!
        let order = posts.indices.sorted { vectors[$0][axis] < vectors[$1][axis] }
        let half = order.count / 2
        let sibling = newLeaf()
        fillLeaf(leaf, with: order[..<half].map { posts[$0] })
        fillLeaf(sibling, with: order[half...].map { posts[$0] })
        attachSibling(sibling, isLeaf: true, after: leaf, isLeafNode: true)
    }

    /// Writes posts into a leaf's block from its start, maps them, and recomputes its summary.
    private mutating func fillLeaf(_ leaf: Int32, with posts: [IndexedPost]) {
        let base = Int(leaf) * Self.leafCapacity
        for k in 0..<Self.leafCapacity { columns.clear(base + k) }
        for (k, post) in posts.enumerated() {
            columns.write(post, at: base + k)
            slots.insert(post.id, slot: Int32(base + k), ids: columns.id)
        }
        leafFill[Int(leaf)] = UInt8(posts.count)
        recomputeSummary(ofLeaf: leaf)
    }

    /// After `node` (a leaf or inner node) was split into itself and `sibling`: refreshes
    /// node's box in its parent and adds the sibling there, splitting upwards as needed; a
    /// split root gets a new root above it.
    private mutating func attachSibling(_ sibling: Int32, isLeaf siblingIsLeaf: Bool, after node: Int32, isLeafNode: Bool) {
        let parent = isLeafNode ? leafParent[Int(node)] : nodeParent[Int(node)]
        if parent < 0 {
            let newRoot = newNode(childrenAreLeaves: isLeafNode)
            append(child: node, box: box(of: node, isLeaf: isLeafNode), to: newRoot)
            append(child: sibling, box: box(of: sibling, isLeaf: siblingIsLeaf), to: newRoot)
            recomputeSummary(ofNode: newRoot)
            root = newRoot
            rootIsLeaf = false
            return
        }
        let k = childIndex(of: node, in: parent)
        childBoxes[Int(parent) * Self.fanout + k] = box(of: node, isLeaf: isLeafNode)
        if Int(nodeFill[Int(parent)]) < Self.fanout {
            append(child: sibling, box: box(of: sibling, isLeaf: siblingIsLeaf), to: parent)
            return
        }
        // The parent is full: split its 17 children along the widest axis of their centres.
        let base = Int(parent) * Self.fanout
        var entries = (0..<Self.fanout).map { (ref: children[base + $0], box: childBoxes[base + $0]) }
        entries.append((sibling, box(of: sibling, isLeaf: siblingIsLeaf)))
        let all = entries.reduce(FloatBox()) { $0.union($1.box) }
        let spreads = [all.maxX - all.minX, all.maxY - all.minY, all.maxZ - all.minZ]
        let axis = spreads.firstIndex(of: spreads.max()!)!
        entries.sort { $0.box.centre[axis] < $1.box.centre[axis] }
        let half = entries.count / 2
        let uncle = newNode(childrenAreLeaves: childrenAreLeaves[Int(parent)])
        nodeFill[Int(parent)] = 0
        for entry in entries[..<half] { append(child: entry.ref, box: entry.box, to: parent) }
        for entry in entries[half...] { append(child: entry.ref, box: entry.box, to: uncle) }
        recomputeSummary(ofNode: parent)
        recomputeSummary(ofNode: uncle)
        attachSibling(uncle, isLeaf: false, after: parent, isLeafNode: false)
    }

    /// After a removal from `leaf`: recomputes summaries and boxes up to the root, dissolving
    /// underfull nodes and reinserting their posts, and shortens the tree when the root has
    /// one child.
    private mutating func condense(from leaf: Int32) {
        var orphans: [IndexedPost] = []
        var node = leaf
        var isLeafNode = true
        while true {
            let parent = isLeafNode ? leafParent[Int(node)] : nodeParent[Int(node)]
            guard parent >= 0 else { break }
            let fill = isLeafNode ? Int(leafFill[Int(node)]) : Int(nodeFill[Int(node)])
            if fill < (isLeafNode ? Self.minLeafFill : Self.minFanout) {
                detach(node, from: parent)
                collectPosts(under: node, isLeaf: isLeafNode, into: &orphans)
            } else {
                if isLeafNode { recomputeSummary(ofLeaf: node) } else { recomputeSummary(ofNode: node) }
                childBoxes[Int(parent) * Self.fanout + childIndex(of: node, in: parent)] = box(of: node, isLeaf: isLeafNode)
            }
            node = parent
            isLeafNode = false
        }
        if rootIsLeaf {
            recomputeSummary(ofLeaf: root)
            if leafFill[Int(root)] == 0 {
                releaseLeaf(root)
                root = -1
            }
        } else {
            recomputeSummary(ofNode: root)
            while root >= 0, !rootIsLeaf, nodeFill[Int(root)] <= 1 {
                let old = root
                if nodeFill[Int(old)] == 0 {
                    root = -1
                } else {
                    root = children[Int(old) * Self.fanout]
                    rootIsLeaf = childrenAreLeaves[Int(old)]
                    if rootIsLeaf { leafParent[Int(root)] = -1 } else { nodeParent[Int(root)] = -1 }
                }
                releaseNode(old)
            }
            if root < 0 { rootIsLeaf = true }
        }
        for post in orphans { place(post, UnitVector(lat: post.lat, lon: post.lon)) }
    }

    /// Takes a child out of its parent (the last child moves into its place).
    private mutating func detach(_ child: Int32, from parent: Int32) {
        let base = Int(parent) * Self.fanout
        let k = childIndex(of: child, in: parent)
        let last = Int(nodeFill[Int(parent)]) - 1
        children[base + k] = children[base + last]
        childBoxes[base + k] = childBoxes[base + last]
        nodeFill[Int(parent)] -= 1
    }

    /// Unmaps and frees everything under a node, gathering its posts.
    private mutating func collectPosts(under node: Int32, isLeaf: Bool, into posts: inout [IndexedPost]) {
        if isLeaf {
            let base = Int(node) * Self.leafCapacity
            for slot in base..<(base + Int(leafFill[Int(node)])) {
                let post = columns.post(at: slot)
                slots.remove(post.id, ids: columns.id)
                posts.append(post)
            }
            releaseLeaf(node)
            return
        }
        let base = Int(node) * Self.fanout
        for k in 0..<Int(nodeFill[Int(node)]) {
            collectPosts(under: children[base + k], isLeaf: childrenAreLeaves[Int(node)], into: &posts)
        }
        releaseNode(node)
    }

    // MARK: - Nodes

    func childIndex(of child: Int32, in parent: Int32) -> Int {
        let base = Int(parent) * Self.fanout
        for k in 0..<Int(nodeFill[Int(parent)]) where children[base + k] == child { return k }
        preconditionFailure("node \(child) is not a child of \(parent)")
    }

    private mutating func append(child: Int32, box: FloatBox, to node: Int32) {
        let k = Int(node) * Self.fanout + Int(nodeFill[Int(node)])
        children[k] = child
        childBoxes[k] = box
        nodeFill[Int(node)] += 1
        if childrenAreLeaves[Int(node)] { leafParent[Int(child)] = node } else { nodeParent[Int(child)] = node }
    }

    /// A node's box, from its contents: its posts' vectors, or its children's boxes.
    func box(of node: Int32, isLeaf: Bool) -> FloatBox {
        if isLeaf {
            var box = VectorBox()
            let base = Int(node) * Self.leafCapacity
            for slot in base..<(base + Int(leafFill[Int(node)])) { box.add(UnitVector(lat: columns.latitude(slot), lon: columns.longitude(slot))) }
            return FloatBox(box)
        }
        let base = Int(node) * Self.fanout
        return childBoxes[base..<(base + Int(nodeFill[Int(node)]))].reduce(FloatBox()) { $0.union($1) }
    }

    mutating func recomputeSummary(ofLeaf leaf: Int32) {
        var summary = NodeSummary()
        let base = Int(leaf) * Self.leafCapacity
        for slot in base..<(base + Int(leafFill[Int(leaf)])) {
            let post = columns.post(at: slot)
            summary.add(post, UnitVector(lat: post.lat, lon: post.lon))
        }
        leafSummary[Int(leaf)] = summary
    }

    mutating func recomputeSummary(ofNode node: Int32) {
        var summary = NodeSummary()
        let base = Int(node) * Self.fanout
        for k in 0..<Int(nodeFill[Int(node)]) {
            let child = Int(children[base + k])
            summary.add(childrenAreLeaves[Int(node)] ? leafSummary[child] : nodeSummary[child])
        }
        nodeSummary[Int(node)] = summary
    }

    private mutating func newLeaf() -> Int32 {
        if let reused = freeLeaves.popLast() {
            leafFill[Int(reused)] = 0
            leafParent[Int(reused)] = -1
            leafSummary[Int(reused)] = NodeSummary()
            return reused
        }
        leafFill.append(0)
        leafParent.append(-1)
        leafSummary.append(NodeSummary())
        columns.grow(by: Self.leafCapacity)
        return Int32(leafFill.count - 1)
    }

    private mutating func releaseLeaf(_ leaf: Int32) {
        let base = Int(leaf) * Self.leafCapacity
        for slot in base..<(base + Self.leafCapacity) { columns.clear(slot) }
        leafFill[Int(leaf)] = 0
        leafParent[Int(leaf)] = -1
        leafSummary[Int(leaf)] = NodeSummary()
        freeLeaves.append(leaf)
    }

    private mutating func newNode(childrenAreLeaves leaves: Bool) -> Int32 {
        if let reused = freeNodes.popLast() {
            nodeFill[Int(reused)] = 0
            childrenAreLeaves[Int(reused)] = leaves
            nodeParent[Int(reused)] = -1
            nodeSummary[Int(reused)] = NodeSummary()
            return reused
        }
        nodeFill.append(0)
        childrenAreLeaves.append(leaves)
        nodeParent.append(-1)
        nodeSummary.append(NodeSummary())
        children.append(contentsOf: repeatElement(-1, count: Self.fanout))
        childBoxes.append(contentsOf: repeatElement(FloatBox(), count: Self.fanout))
        return Int32(nodeFill.count - 1)
    }

    private mutating func releaseNode(_ node: Int32) {
        nodeFill[Int(node)] = 0
        nodeParent[Int(node)] = -1
        nodeSummary[Int(node)] = NodeSummary()
        freeNodes.append(node)
    }

    // MARK: - Packing

    /// Sort-tile-recursive packing: sort by x into slabs, each by y into slabs, each by z into
    /// runs of at most `capacity`; sizes are spread evenly so every node is well filled.
    ///
    /// Each sort is of plain integers: the coordinate, as a single-precision float made
    /// order-preserving, in the high half and the item in the low half, because sorting item
    /// numbers through a comparison closure dominated the bulk build. The float only decides
    /// tiling, never a query's answer (node boxes are computed from the exact vectors).
    static func packSortTileRecursive(_ items: [Int], centres: [UnitVector], capacity: Int) -> [[Int]] {
        func pack(_ items: ArraySlice<Int>, axis: Int) -> [[Int]] {
            var keyed = items.map { item -> UInt64 in
                let bits = Float(centres[item][axis]).bitPattern
                let ordered = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
                return UInt64(ordered) << 32 | UInt64(UInt32(item))
            }
            sortByHighHalf(&keyed)
            let sorted = keyed.map { Int(UInt32(truncatingIfNeeded: $0)) }
            let nodesNeeded = (sorted.count + capacity - 1) / capacity
            if axis == 2 || nodesNeeded <= 1 { return evenChunks(sorted, count: nodesNeeded) }
            // Slabs per axis: the cube root of the nodes needed on x, the square root on y.
            let slabs = axis == 0 ? cbrt(nodesNeeded) : Int(Double(nodesNeeded).squareRoot().rounded(.up))
            return evenChunks(sorted, count: max(1, min(slabs, nodesNeeded))).flatMap { pack($0[...], axis: axis + 1) }
        }
        return pack(items[...], axis: 0)
    }

    /// Sorts by the high 32 bits, keeping the input order among equal ones: a least-significant
    /// digit radix sort, four passes of a byte (a pass is skipped when every key shares its
    /// byte, as the high bytes of nearby coordinates do). Faster than a comparison sort on the
    /// bulk build's large slabs; small ones use the standard sort.
    static func sortByHighHalf(_ keys: inout [UInt64]) {
        guard keys.count > 512 else {
            keys.sort()
            return
        }
        var scratch = [UInt64](repeating: 0, count: keys.count)
        var counts = [Int](repeating: 0, count: 256)
        let resultInScratch = keys.withUnsafeMutableBufferPointer { original in
            scratch.withUnsafeMutableBufferPointer { spare in
                counts.withUnsafeMutableBufferPointer { counts in radixPasses(original, spare, counts) }
            }
        }
        if resultInScratch { keys = scratch }
    }

    /// The passes of `sortByHighHalf`, between two buffers; true when the result ends in `spare`.
    private static func radixPasses(
        _ original: UnsafeMutableBufferPointer<UInt64>, _ spare: UnsafeMutableBufferPointer<UInt64>, _ counts: UnsafeMutableBufferPointer<Int>
    ) -> Bool {
        var (source, target) = (original, spare)
        var resultInSpare = false
        for shift in stride(from: UInt64(32), to: 64, by: 8) {
            for k in 0..<256 { counts[k] = 0 }
            for key in source { counts[Int(truncatingIfNeeded: key >> shift) & 0xFF] += 1 }
            if counts.contains(source.count) { continue }
            var start = 0
            for k in 0..<256 { (counts[k], start) = (start, start + counts[k]) }
            for key in source {
                let digit = Int(truncatingIfNeeded: key >> shift) & 0xFF
                target[counts[digit]] = key
                counts[digit] += 1
            }
            swap(&source, &target)
            resultInSpare.toggle()
        }
        return resultInSpare
    }

    /// Leaves for the bulk build: spatial tiles of `timeSlices` leaves' worth of posts, each
    /// cut into leaves by time. Siblings then share an area but not a time range, so a time
    /// filter or a newest-first walk prunes whole leaves, which purely spatial leaves (each
    /// spanning every year of a place) never allow.
    static func packTilesByTime(_ posts: [IndexedPost], centres: [UnitVector]) -> [[Int]] {
        let slices = timeSlices
        let tiles = packSortTileRecursive(Array(posts.indices), centres: centres, capacity: slices * leafCapacity)
        guard slices > 1 else { return tiles }
        return tiles.flatMap { tile -> [[Int]] in
            // One integer a post: its time after the tile's earliest in the high bits, its place
            // in the tile below (a tile holds at most 128), so equal times keep the tile's order.
            let earliest = tile.lazy.map { posts[$0].createdAt }.min() ?? 0
            var keyed = tile.enumerated().map { place, item in UInt64(bitPattern: posts[item].createdAt &- earliest) << 8 | UInt64(place) }
            keyed.sort()
            let byTime = keyed.map { tile[Int($0 & 0xFF)] }
            return evenChunks(byTime, count: (byTime.count + leafCapacity - 1) / leafCapacity)
        }
    }

    /// Leaves per tile, split by time: enough to speed up time-filtered queries, few enough to
    /// keep plain ones as fast (docs/benchmarks.md).
    static let timeSlices = 4

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
