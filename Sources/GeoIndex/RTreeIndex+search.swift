/// Best-first searches over the R-tree.
extension RTreeIndex {
    /// A frontier entry: a node (with a bound) or a post found (with its exact values).
    struct Frontier {
        /// Ascending: a distance bound or distance, or a negated time.
        var key: Double
        /// Among posts with equal keys: ascending id (distance order) or descending (newest).
        var tie: Int64
        /// The node, or -1 for a post.
        var node: Int32
        var hit: NearbyHit?

        static func less(_ a: Frontier, _ b: Frontier) -> Bool {
            if a.key != b.key { return a.key < b.key }
            // A node's bound can equal a post's key: open the node first, it may hold a better tie.
            if (a.node >= 0) != (b.node >= 0) { return a.node >= 0 }
            return a.tie < b.tie
        }
    }

    /// Posts matching the search, in its order, strictly after its cursor, at most `limit`.
    public func nearby(_ search: NearbySearch) -> [NearbyHit] {
        guard root >= 0, search.limit > 0 else { return [] }
        let centre = UnitVector(lat: search.lat, lon: search.lon)
        // Chords compare without trigonometry. A chord between unit vectors loses about 1e-15
        // to cancellation (~1e-8 m on the earth): the margins below are far wider, so rounding
        // never prunes a post on the circle or opens a node late; each candidate is then
        // decided exactly by haversine.
        let chordLimit = UnitVector.chord(metres: search.radius) * (1 + 1e-9) + 1e-12
        let chordLimitSquared = chordLimit * chordLimit
        let wantedTags = search.filter.tags.map(NodeSummary.mask(of:))
        let byDistance = search.order == .distance
        var frontier = MinHeap<Frontier>(less: Frontier.less)
        var found: [NearbyHit] = []
        frontier.push(Frontier(key: -.infinity, tie: 0, node: root, hit: nil))
        while let next = frontier.pop() {
            if let hit = next.hit {
                found.append(hit)
                if found.count == search.limit { break }
                continue
            }
            let node = Int(next.node)
            if isLeaf[node] {
                for slot in entries[node] {
                    guard let hit = search.hit(for: columns.post(at: slot)) else { continue }
                    if let after = search.after, !hit.comes(after: after) { continue }
                    frontier.push(
                        byDistance
                            ? Frontier(key: hit.distance, tie: hit.id, node: -1, hit: hit)
                            : Frontier(key: -Double(hit.createdAt), tie: -hit.id, node: -1, hit: hit))
                }
                continue
            }
            for child in entries[node] {
                let summary = summaries[Int(child)]
                guard summary.mayMatch(search.filter, tagMask: wantedTags) else { continue }
                let squared = summary.box.squaredDistance(to: centre)
                guard squared <= chordLimitSquared else { continue }
                if byDistance {
                    // A lower bound on every distance below, lowered a little against rounding.
                    let bound = UnitVector.metres(chord: squared.squareRoot()) * (1 - 1e-9) - 1e-5
                    frontier.push(Frontier(key: bound, tie: 0, node: child, hit: nil))
                } else {
                    frontier.push(Frontier(key: -Double(summary.maxTime), tie: 0, node: child, hit: nil))
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
