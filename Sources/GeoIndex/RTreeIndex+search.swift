import Foundation

/// Best-first searches over the R-tree.
extension RTreeIndex {
    /// Posts matching the search, in its order, strictly after its cursor, at most `limit`.
    ///
    /// Best-first: nodes enter the frontier keyed by a lower bound on their distance (or by
    /// their newest time); a post enters keyed by a cheap lower bound from its coordinates, and
    /// is evaluated exactly (haversine, bearing, cone, heading) only when it reaches the front.
    /// Every bound is at most the true value, so the order is exact.
    public func nearby(_ search: NearbySearch) -> [NearbyHit] {
        guard root >= 0, search.limit > 0 else { return [] }
        let centre = UnitVector(lat: search.lat, lon: search.lon)
        let (qx, qy, qz) = (Float(centre.x), Float(centre.y), Float(centre.z))
        let earth = Geodesy.earthRadiusMeters
        // A chord is never longer than its arc, so R·chord bounds a distance from below. Boxes
        // and the centre are single precision: the 3 m margin covers their rounding (~2e-7 of
        // the unit sphere, about 1.3 m).
        let nodeMargin = 3.0
        let nodeChordLimit = Float((search.radius + nodeMargin) / earth * (1 + 1e-6))
        let nodeChordLimitSquared = nodeChordLimit * nodeChordLimit
        let wantedTags = search.filter.tags.map(NodeSummary.mask(of:))
        let byDistance = search.order == .distance
        let popularAt: Int64? = if case .popular(let instant) = search.order { instant } else { nil }
        let needsSummaries = search.filter.tags != nil || search.filter.createdFrom != nil || search.filter.createdBefore != nil
            || search.filter.floor != nil || search.filter.floors != nil || search.filter.aliveAt != nil
        let place = search.filter.place
        let viewer = ViewerTrigonometry(lat: search.lat)
        let postBound = PostDistanceBound(lat: search.lat, lon: search.lon, cosLat: viewer.cosPhi, radius: search.radius)
        let coneTest = search.cone.flatMap { ConeBoxTest($0, lat: search.lat, lon: search.lon) }
        var frontier = SearchFrontier()
        var leafBounds = [Double](repeating: 0, count: Self.leafCapacity)
        var exact: [NearbyHit] = []
        var found: [NearbyHit] = []
        found.reserveCapacity(min(search.limit, 64))
        frontier.push(.init(key: -.infinity, tie: 0, ref: root, state: rootIsLeaf ? .leaf : .node))
        while let next = frontier.pop() {
            switch next.state {
            case .exactPost:
                found.append(exact[Int(next.ref)])
                if found.count == search.limit { return found }
            case .candidatePost:
                let i = Int(next.ref)
                // The heading column is read only when a filter needs it: one cache line less.
                guard
                    var hit = search.hit(
                        id: columns.id[i], lat: columns.latitude(i), lon: columns.longitude(i),
                        heading: search.headingFilter == nil ? nil : columns.headingDegrees(i),
                        createdAt: columns.createdAt[i], viewer: viewer)
                else { continue }
                hit.slot = Int32(i)
                if let popularAt { hit.score = PopularScore.score(likes: columns.likes[i], createdAt: hit.createdAt, at: popularAt) }
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
                    // Keyed by time or score already, and exact: it is next in order.
                    found.append(hit)
                    if found.count == search.limit { return found }
                }
            case .leaf:
                let leaf = Int(next.ref)
                let base = leaf * Self.leafCapacity
                let fill = Int(leafFill[leaf])
                // The leaf's bounds in one tight pass over its two coordinate blocks, then the
                // pushes: fewer instructions than interleaving them.
                postBound.metres(lat: columns.lat, lon: columns.lon, slots: base..<(base + fill), into: &leafBounds)
                for j in 0..<fill {
                    let bound = leafBounds[j]
                    guard bound <= search.radius else { continue }
                    let i = base + j
                    guard columns.passesAttributes(i, search.filter) else { continue }
                    if let place, !next.inPlace, !columns.isInside(i, place) { continue }
                    if byDistance {
                        // Candidates tie by slot: the order they are evaluated in never shows
                        // (exact posts tie by id). Their id and time are read when they reach
                        // the front: those lines start loading now.
                        columns.id.prefetch(from: i)
                        columns.createdAt.prefetch(from: i)
                        frontier.push(.init(key: bound, tie: Int64(i), ref: Int32(i), state: .candidatePost))
                    } else if let popularAt {
                        let id = columns.id[i]
                        let score = PopularScore.score(likes: columns.likes[i], createdAt: columns.createdAt[i], at: popularAt)
                        if case .popular(let s, let afterId)? = search.after, !PopularScore.comes(score: score, id: id, after: s, afterId) {
                            continue
                        }
                        frontier.push(.init(key: -score, tie: -id, ref: Int32(i), state: .candidatePost))
                    } else {
                        let id = columns.id[i]
                        let time = columns.createdAt[i]
                        if case .newest(let t, let afterId)? = search.after, !(time < t || (time == t && id < afterId)) { continue }
                        frontier.push(.init(key: -Double(time), tie: -id, ref: Int32(i), state: .candidatePost))
                    }
                }
            case .node:
                let node = Int(next.ref)
                let base = node * Self.fanout
                let leaves = childrenAreLeaves[node]
                let state: SearchFrontier.State = leaves ? .leaf : .node
                for k in base..<(base + Int(nodeFill[node])) {
                    // Most children fail on the squared chord, before any square root.
                    let squared = childBoxes[k].squaredDistance(qx, qy, qz)
                    guard squared <= nodeChordLimitSquared else { continue }
                    let bound = earth * Double(squared).squareRoot() - nodeMargin
                    // Beyond the accuracy disc, a child wholly outside the cone holds no hit.
                    if let coneTest, bound > coneTest.accuracy, coneTest.excludes(childBoxes[k]) { continue }
                    let child = children[k]
                    var inPlace = next.inPlace
                    if needsSummaries || !byDistance || place != nil {
                        let summary = leaves ? leafSummary[Int(child)] : nodeSummary[Int(child)]
                        guard summary.mayMatch(search.filter, tagMask: wantedTags) else { continue }
                        guard let relation = Self.placeRelation(summary, place, parentInPlace: inPlace) else { continue }
                        inPlace = relation
                        if let popularAt {
                            // Best-first on the score bound: the walk stops as soon as no
                            // unopened node can hold a post scoring above the page's last.
                            if leaves { prefetchCoordinates(ofLeaf: child) }
                            frontier.push(.init(key: -PopularScore.bound(summary, at: popularAt), tie: 0, ref: child, state: state, inPlace: inPlace))
                            continue
                        }
                        if !byDistance {
                            if case .newest(let t, _)? = search.after, summary.minTime > t { continue }
                            if leaves { prefetchCoordinates(ofLeaf: child) }
                            frontier.push(.init(key: -Double(summary.maxTime), tie: 0, ref: child, state: state, inPlace: inPlace))
                            continue
                        }
                    }
                    if leaves { prefetchCoordinates(ofLeaf: child) }
                    frontier.push(.init(key: bound, tie: 0, ref: child, state: state, inPlace: inPlace))
                }
            }
        }
        return found
    }

    /// Starts loading a leaf's coordinates, which a walk reads first when it reaches the leaf.
    /// Called as the leaf enters the frontier, so the loads overlap with the entries worked
    /// before it, because a cold query spends much of its time waiting on memory. Inner nodes
    /// are not prefetched: it cost more instructions than it saved.
    @inline(__always)
    func prefetchCoordinates(ofLeaf leaf: Int32) {
        let slot = Int(leaf) * Self.leafCapacity
        columns.lat.prefetch(from: slot, count: Self.leafCapacity)
        columns.lon.prefetch(from: slot, count: Self.leafCapacity)
    }

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
