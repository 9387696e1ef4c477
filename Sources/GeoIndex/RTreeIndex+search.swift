/// Best-first searches over the R-tree.
extension RTreeIndex {
    /// Posts matching the search, in its order, strictly after its cursor, at most `limit`.
    ///
    /// Best-first: nodes enter the frontier keyed by a lower bound on their distance (or by
    /// their newest time); a post enters keyed by a cheap lower bound from its single-precision
    /// vector, and is evaluated exactly (haversine, bearing, cone, heading) only when it reaches
    /// the front. Every bound is at most the true value, so the order is exact.
    public func nearby(_ search: NearbySearch) -> [NearbyHit] {
        guard root >= 0, search.limit > 0 else { return [] }
        let centre = UnitVector(lat: search.lat, lon: search.lon)
        let (qx, qy, qz) = (Float(centre.x), Float(centre.y), Float(centre.z))
        let earth = Geodesy.earthRadiusMeters
        // A chord is never longer than its arc, so R·chord bounds a distance from below. The
        // margins cover rounding: ~1e-15 on double chords, ~1e-7 (under a metre) on floats.
        let nodeChordLimit = search.radius / earth * (1 + 1e-9) + 1e-12
        let nodeChordLimitSquared = nodeChordLimit * nodeChordLimit
        let postMargin = 3.0
        let wantedTags = search.filter.tags.map(NodeSummary.mask(of:))
        let byDistance = search.order == .distance
        let needsSummaries = search.filter.tags != nil || search.filter.createdFrom != nil || search.filter.createdBefore != nil
            || search.filter.floor != nil
        let viewer = ViewerTrigonometry(lat: search.lat)
        var frontier = NearbyFrontier()
        var exact: [NearbyHit] = []
        var found: [NearbyHit] = []
        found.reserveCapacity(search.limit)
        frontier.push(.init(key: -.infinity, tie: 0, ref: root, state: .node))
        while let next = frontier.pop() {
            switch next.state {
            case .exactPost:
                found.append(exact[Int(next.ref)])
                if found.count == search.limit { return found }
            case .candidatePost:
                guard let hit = search.hit(for: columns.post(at: next.ref), viewer: viewer) else { continue }
                if let after = search.after, !hit.comes(after: after) { continue }
                if byDistance {
                    // Strictly ahead of everything else waiting: it is next, no need to queue it.
                    if hit.distance < frontier.minimumKey {
                        found.append(hit)
                        if found.count == search.limit { return found }
                        continue
                    }
                    exact.append(hit)
                    frontier.push(.init(key: hit.distance, tie: hit.id, ref: Int32(exact.count - 1), state: .exactPost))
                } else {
                    // Keyed by time already, and exact: it is next in order.
                    found.append(hit)
                    if found.count == search.limit { return found }
                }
            case .node:
                let node = Int(next.ref)
                if isLeaf[node] {
                    for slot in entries[node] {
                        let i = Int(slot)
                        guard columns.passesAttributes(i, search.filter) else { continue }
                        let dx = columns.vector[3 * i] - qx, dy = columns.vector[3 * i + 1] - qy, dz = columns.vector[3 * i + 2] - qz
                        let bound = earth * Double(dx * dx + dy * dy + dz * dz).squareRoot() - postMargin
                        guard bound <= search.radius else { continue }
                        let id = columns.id[i]
                        if byDistance {
                            frontier.push(.init(key: bound, tie: id, ref: slot, state: .candidatePost))
                        } else {
                            let time = columns.createdAt[i]
                            if case .newest(let t, let afterId)? = search.after, !(time < t || (time == t && id < afterId)) { continue }
                            frontier.push(.init(key: -Double(time), tie: -id, ref: slot, state: .candidatePost))
                        }
                    }
                    continue
                }
                for child in entries[node] {
                    let squared = boxes[Int(child)].squaredDistance(to: centre)
                    guard squared <= nodeChordLimitSquared else { continue }
                    if needsSummaries, !summaries[Int(child)].mayMatch(search.filter, tagMask: wantedTags) { continue }
                    if byDistance {
                        let bound = earth * squared.squareRoot() * (1 - 1e-9) - 1e-5
                        frontier.push(.init(key: bound, tie: 0, ref: child, state: .node))
                    } else {
                        let summary = summaries[Int(child)]
                        if case .newest(let t, _)? = search.after, summary.minTime > t { continue }
                        frontier.push(.init(key: -Double(summary.maxTime), tie: 0, ref: child, state: .node))
                    }
                }
            }
        }
        return found
    }

    /// Posts in the box, newest first, strictly after the cursor, at most `limit`.
    public func browse(_ search: AreaSearch) -> [IndexedPost] {
        guard root >= 0, search.limit > 0 else { return [] }
        let wantedTags = search.filter.tags.map(NodeSummary.mask(of:))
        var frontier = MinHeap<(key: Double, tie: Int64, node: Int32, post: IndexedPost?)>(less: { a, b in
            if a.key != b.key { return a.key < b.key }
            if (a.node >= 0) != (b.node >= 0) { return a.node >= 0 }
            return a.tie < b.tie
        })
        var found: [IndexedPost] = []
        frontier.push((-.infinity, 0, root, nil))
        while let next = frontier.pop() {
            if let post = next.post {
                found.append(post)
                if found.count == search.limit { break }
                continue
            }
            let node = Int(next.node)
            if isLeaf[node] {
                for slot in entries[node] {
                    let post = columns.post(at: slot)
                    if search.matches(post) { frontier.push((-Double(post.createdAt), -post.id, -1, post)) }
                }
                continue
            }
            for child in entries[node] {
                let summary = summaries[Int(child)]
                guard summary.mayIntersect(search.box), summary.mayMatch(search.filter, tagMask: wantedTags) else { continue }
                if let after = search.after, summary.minTime > after.createdAt { continue }
                frontier.push((-Double(summary.maxTime), 0, child, nil))
            }
        }
        return found
    }

    /// How many posts in the box match the filter, per tag.
    public func tagCounts(in box: GeoBox, filter: PostFilter) -> [TagID: Int] {
        var counts: [TagID: Int] = [:]
        forEachPost(in: box, filter: filter) { post in
            if box.contains(lat: post.lat, lon: post.lon), filter.matches(post) { counts[post.tag, default: 0] += 1 }
        }
        return counts
    }

    /// Clusters for a map zoom. A node wholly inside the box, wholly passing the filter and
    /// wholly inside one cluster cell is counted from its summary, without visiting its posts:
    /// zoomed out, a view touches a few hundred nodes, not every post.
    public func clusters(in box: GeoBox, filter: PostFilter, zoom: Int) -> (clusters: [Cluster], total: Int) {
        var grid = ClusterGrid(zoom: zoom)
        var total = 0
        guard root >= 0 else { return ([], 0) }
        let wantedTags = filter.tags.map(NodeSummary.mask(of:))
        let tagBitsAreExact = highestTag < 64
        var stack: [Int32] = [root]
        while let node = stack.popLast() {
            let summary = summaries[Int(node)]
            guard summary.count > 0, summary.mayIntersect(box), summary.mayMatch(filter, tagMask: wantedTags) else { continue }
            if summary.count > 1, summary.isInside(box), summary.allMatch(filter, tagBitsAreExact: tagBitsAreExact),
                grid.addWhole(summary)
            {
                total += summary.count
                continue
            }
            if isLeaf[Int(node)] {
                for slot in entries[Int(node)] {
                    let post = columns.post(at: slot)
                    guard box.contains(lat: post.lat, lon: post.lon), filter.matches(post) else { continue }
                    grid.add(post)
                    total += 1
                }
            } else {
                stack += entries[Int(node)]
            }
        }
        return (grid.clusters(), total)
    }

    /// Every post in nodes that may intersect the box and pass the filter (callers refine).
    func forEachPost(in box: GeoBox, filter: PostFilter, _ body: (IndexedPost) -> Void) {
        guard root >= 0 else { return }
        let wantedTags = filter.tags.map(NodeSummary.mask(of:))
        var stack: [Int32] = [root]
        while let node = stack.popLast() {
            let summary = summaries[Int(node)]
            guard summary.mayIntersect(box), summary.mayMatch(filter, tagMask: wantedTags) else { continue }
            if isLeaf[Int(node)] {
                for slot in entries[Int(node)] { body(columns.post(at: slot)) }
            } else {
                stack += entries[Int(node)]
            }
        }
    }
}

/// The frontier of a nearby walk: a binary min-heap of small entries, compared inline.
struct NearbyFrontier {
    enum State: UInt8 {
        /// Ordered first among equal keys: a node may hold a post that ties.
        case node = 0
        /// A post keyed by a lower bound, not yet evaluated.
        case candidatePost = 1
        /// A post keyed by its exact distance.
        case exactPost = 2
    }

    struct Entry {
        var key: Double
        var tie: Int64
        var ref: Int32
        var state: State

        @inline(__always)
        static func < (a: Entry, b: Entry) -> Bool {
            if a.key != b.key { return a.key < b.key }
            if a.state != b.state { return a.state.rawValue < b.state.rawValue }
            return a.tie < b.tie
        }
    }

    private var heap: [Entry] = []

    init() { heap.reserveCapacity(256) }

    /// The smallest key waiting, infinity when empty.
    var minimumKey: Double { heap.first?.key ?? .infinity }

    mutating func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let up = (child - 1) >> 1
            guard heap[child] < heap[up] else { break }
            heap.swapAt(child, up)
            child = up
        }
    }

    mutating func pop() -> Entry? {
        guard let last = heap.popLast() else { return nil }
        guard !heap.isEmpty else { return last }
        let top = heap[0]
        heap[0] = last
        var node = 0
        let count = heap.count
        while true {
            let left = 2 * node + 1
            guard left < count else { break }
            var smallest = left
            if left + 1 < count, heap[left + 1] < heap[left] { smallest = left + 1 }
            guard heap[smallest] < heap[node] else { break }
            heap.swapAt(node, smallest)
            node = smallest
        }
        return top
    }
}
