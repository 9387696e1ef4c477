import Foundation

/// The box searches over the R-tree: browse (best first by time or score), tags, clusters and
/// counts; the nearby walk is `RTreeIndex+nearby.swift`.
extension RTreeIndex {
    /// Posts in the box, newest first, strictly after the cursor, at most `limit`.
    public func browse(_ search: AreaSearch) -> [IndexedPost] {
        guard root >= 0, search.limit > 0 else { return [] }
        let wantedTags = search.filter.tags.map(NodeSummary.mask(of:))
        // Newest first: keys are negated times. A post is pushed by its slot, keyed by its time
        // with ties broken by the higher id; a node by the newest time below it, so it is opened
        // before any post it may hold an equal or newer one than.
        var frontier = SearchFrontier()
        var found: [IndexedPost] = []
        frontier.push(.init(key: -.infinity, tie: 0, ref: root, state: rootIsLeaf ? .leaf : .node))
        while let next = frontier.pop() {
            switch next.state {
            case .exactPost, .candidatePost:
                found.append(columns.post(at: Int(next.ref)))
                if found.count == search.limit { return found }
            case .leaf:
                let base = Int(next.ref) * Self.leafCapacity
                var leafSearch = search
                if next.inPlace { leafSearch.filter.place = nil }
                for slot in base..<(base + Int(leafFill[Int(next.ref)])) {
                    let post = columns.post(at: slot)
                    guard leafSearch.matches(post) else { continue }
                    let key = search.popularAt == nil ? -Double(post.createdAt) : -search.score(of: post)
                    frontier.push(.init(key: key, tie: -post.id, ref: Int32(slot), state: .exactPost))
                }
            case .node:
                forEachChild(of: next.ref) { child, isLeaf, summary in
                    guard summary.mayIntersect(search.box), summary.mayMatch(search.filter, tagMask: wantedTags) else { return }
                    guard let inPlace = Self.placeRelation(summary, search.filter.place, parentInPlace: next.inPlace) else { return }
                    let key: Double
                    if let popularAt = search.popularAt {
                        key = -PopularScore.bound(summary, at: popularAt)
                    } else {
                        if let after = search.after, summary.minTime > after.createdAt { return }
                        key = -Double(summary.maxTime)
                    }
                    frontier.push(.init(key: key, tie: 0, ref: child, state: isLeaf ? .leaf : .node, inPlace: inPlace))
                }
            }
        }
        return found
    }

    /// The filter without an expiry instant or creation bound that no post stored can fail: a
    /// board where nothing has expired keeps the zoomed-out clusters' whole-cell counts.
    func withoutNoOpInstants(_ filter: PostFilter) -> PostFilter {
        guard root >= 0 else { return filter }
        let summary = rootIsLeaf ? leafSummary[Int(root)] : nodeSummary[Int(root)]
        var simpler = filter
        if let instant = filter.aliveAt, summary.minExpires > instant { simpler.aliveAt = nil }
        if let before = filter.createdBefore, summary.maxTime < before { simpler.createdBefore = nil }
        return simpler
    }

    /// How many posts in the box match the filter, per tag.
    public func tagCounts(in box: GeoBox, filter: PostFilter) -> [TagID: Int] {
        var counts: [TagID: Int] = [:]
        forEachMatchingPost(in: box, filter: filter) { counts[$0.tag, default: 0] += 1 }
        return counts
    }

    /// Clusters for a map zoom. A node wholly inside the box, wholly passing the filter and
    /// wholly inside one cluster cell is counted from its summary, without visiting its posts:
    /// zoomed out, a view touches a few hundred nodes, not every post.
    public func clusters(in box: GeoBox, filter: PostFilter, zoom: Int) -> (clusters: [Cluster], total: Int) {
        var grid = ClusterGrid(zoom: zoom)
        var total = 0
        guard root >= 0 else { return ([], 0) }
        let filter = withoutNoOpInstants(filter)
        if filter == .all, zoom <= ClusterPyramid.maxZoom {
            // Zoomed out: whole cells from the pyramid, post by post only where the view cuts one.
            let (whole, cut) = pyramid.addCells(in: box, zoom: zoom, to: &grid)
            total = whole
            for (key, extent) in cut {
                let margin = 1e-6
                let widened = GeoBox(west: extent.west - margin, south: extent.south - margin, east: extent.east + margin, north: extent.north + margin)
                forEachMatchingPost(in: widened, filter: .all) { post in
                    guard grid.key(of: post) == key, box.contains(lat: post.lat, lon: post.lon) else { return }
                    grid.add(id: post.id, lat: post.lat, lon: post.lon, key: key)
                    total += 1
                }
            }
            return (grid.clusters(), total)
        }
        walk(in: box, filter: filter, whole: { summary in
            guard summary.count > 1, grid.addWhole(summary) else { return false }
            total += summary.count
            return true
        }, leaf: { node, inPlace in
            let base = Int(node) * Self.leafCapacity
            let place = inPlace ? nil : filter.place
            // Only the columns a cluster needs: a whole post is seven of them.
            for slot in base..<(base + Int(leafFill[Int(node)])) {
                let lat = columns.latitude(slot), lon = columns.longitude(slot)
                guard box.contains(lat: lat, lon: lon), columns.passesAttributes(slot, filter) else { continue }
                if let place, !columns.isInside(slot, place) { continue }
                grid.add(id: columns.id[slot], lat: lat, lon: lon)
                total += 1
            }
        })
        return (grid.clusters(), total)
    }

    /// How many posts in the box match the filter: nodes wholly inside the box, the filter and
    /// the place are counted from their summaries.
    public func count(in box: GeoBox, filter: PostFilter) -> Int {
        var total = 0
        forEachMatchingPost(in: box, filter: filter, whole: { summary in
            total += summary.count
            return true
        }, each: { _ in total += 1 })
        return total
    }

    /// Every post in the box that passes the filter; posts of nodes wholly inside the filter's
    /// place skip the place test.
    public func forEachMatchingPost(in box: GeoBox, filter: PostFilter, _ body: (IndexedPost) -> Void) {
        forEachMatchingPost(in: box, filter: filter, whole: { _ in false }, each: body)
    }

    /// The same; `whole` may take a node wholly inside the box, the filter and the place at
    /// once (returning true), without its posts.
    func forEachMatchingPost(in box: GeoBox, filter: PostFilter, whole: (NodeSummary) -> Bool, each body: (IndexedPost) -> Void) {
        walk(in: box, filter: filter, whole: whole) { node, inPlace in
            var refined = filter
            if inPlace { refined.place = nil }
            let base = Int(node) * Self.leafCapacity
            for slot in base..<(base + Int(leafFill[Int(node)])) {
                let post = columns.post(at: slot)
                if box.contains(lat: post.lat, lon: post.lon), refined.matches(post) { body(post) }
            }
        }
    }

    /// Depth first over the nodes that may hold a post in the box passing the filter: a node
    /// wholly inside the box, the filter and the place is offered to `whole` (true: taken, not
    /// descended); every other leaf goes to `leaf` with whether it lies wholly in the place.
    func walk(in box: GeoBox, filter: PostFilter, whole: (NodeSummary) -> Bool, leaf: (Int32, Bool) -> Void) {
        guard root >= 0 else { return }
        let wantedTags = filter.tags.map(NodeSummary.mask(of:))
        let tagBitsAreExact = highestTag < 64
        var stack: [(node: Int32, isLeaf: Bool, inPlace: Bool)] = [(root, rootIsLeaf, false)]
        while let (node, isLeaf, parentInPlace) = stack.popLast() {
            let summary = isLeaf ? leafSummary[Int(node)] : nodeSummary[Int(node)]
            guard summary.count > 0, summary.mayIntersect(box), summary.mayMatch(filter, tagMask: wantedTags),
                let inPlace = Self.placeRelation(summary, filter.place, parentInPlace: parentInPlace)
            else { continue }
            if summary.isInside(box), summary.allMatch(filter, tagBitsAreExact: tagBitsAreExact), filter.place == nil || inPlace,
                whole(summary)
            {
                continue
            }
            if isLeaf {
                leaf(node, inPlace)
            } else {
                forEachChild(of: node) { child, childIsLeaf, _ in stack.append((child, childIsLeaf, inPlace)) }
            }
        }
    }

    /// Whether a node is wholly inside the place (`true`), straddles it or there is no place
    /// (`false`), or lies outside it (`nil`: skip it).
    @inline(__always)
    static func placeRelation(_ summary: NodeSummary, _ place: PlaceShape?, parentInPlace: Bool) -> Bool? {
        guard let place, !parentInPlace else { return parentInPlace }
        switch summary.relation(to: place) {
        case .outside: return nil
        case .inside: return true
        case .straddles: return false
        }
    }

    /// Calls `body` with each child of an inner node, whether it is a leaf, and its summary.
    func forEachChild(of node: Int32, _ body: (Int32, Bool, NodeSummary) -> Void) {
        let base = Int(node) * Self.fanout
        let leaves = childrenAreLeaves[Int(node)]
        for k in base..<(base + Int(nodeFill[Int(node)])) {
            let child = children[k]
            body(child, leaves, leaves ? leafSummary[Int(child)] : nodeSummary[Int(child)])
        }
    }
}
