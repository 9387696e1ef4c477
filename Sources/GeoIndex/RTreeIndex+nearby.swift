/// The nearby walk: best first over the R-tree in one of three orders.
extension RTreeIndex {
    /// Posts matching the search, in its order, strictly after its cursor, at most `limit`.
    ///
    /// Best-first: nodes enter the frontier keyed by a lower bound on their distance (or by
    /// their newest time, or best score); a post enters keyed by a cheap lower bound from its
    /// coordinates, and is evaluated exactly (haversine, bearing, cone, heading) only when it
    /// reaches the front. Every bound is at most the true value, so the order is exact.
    public func nearby(_ search: NearbySearch) -> [NearbyHit] {
        guard root >= 0, search.limit > 0 else { return [] }
        switch search.order {
        case .distance: return nearby(search, DistanceOrder())
        case .newest: return nearby(search, NewestOrder(after: search.after))
        case .popular(let instant): return nearby(search, PopularOrder(at: instant, after: search.after))
        }
    }

    func nearby<Order: NearbyOrder>(_ search: NearbySearch, _ order: Order) -> [NearbyHit] {
        let walk = NearbyWalk(search, orderKeysNodesBySummary: Order.keysNodesBySummary)
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
                guard var hit = walk.hit(slot: i, columns: columns) else { continue }
                order.rank(&hit, slot: i, columns: columns)
                if let after = search.after, !hit.comes(after: after) { continue }
                // Keyed exactly already, or strictly ahead of everything else waiting: it is next.
                if !Order.keysCandidatesByBound || hit.distance < frontier.minimumKey {
                    found.append(hit)
                    if found.count == search.limit { return found }
                    continue
                }
                exact.append(hit)
                frontier.push(.init(key: hit.distance, tie: hit.id, ref: Int32(exact.count - 1), state: .exactPost))
            case .leaf:
                let base = Int(next.ref) * Self.leafCapacity
                let fill = Int(leafFill[Int(next.ref)])
                // The leaf's bounds in one tight pass over its two coordinate blocks, then the
                // pushes: fewer instructions than interleaving them.
                walk.postBound.metres(lat: columns.lat, lon: columns.lon, slots: base..<(base + fill), into: &leafBounds)
                for j in 0..<fill {
                    let i = base + j
                    guard walk.admits(slot: i, bound: leafBounds[j], inPlace: next.inPlace, columns: columns),
                        let entry = order.candidateKey(slot: i, bound: leafBounds[j], columns: columns)
                    else { continue }
                    frontier.push(.init(key: entry.key, tie: entry.tie, ref: Int32(i), state: .candidatePost))
                }
            case .node:
                let node = Int(next.ref)
                let base = node * Self.fanout
                let leaves = childrenAreLeaves[node]
                for k in base..<(base + Int(nodeFill[node])) {
                    guard let bound = walk.bound(of: childBoxes[k]) else { continue }
                    let child = children[k]
                    var (key, inPlace) = (bound, next.inPlace)
                    if walk.readsSummaries {
                        let summary = leaves ? leafSummary[Int(child)] : nodeSummary[Int(child)]
                        guard let relation = walk.placeRelation(summary, parentInPlace: inPlace),
                            let summaryKey = order.nodeKey(summary, bound: bound)
                        else { continue }
                        (key, inPlace) = (summaryKey, relation)
                    }
                    if leaves { prefetchCoordinates(ofLeaf: child) }
                    frontier.push(.init(key: key, tie: 0, ref: child, state: leaves ? .leaf : .node, inPlace: inPlace))
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
}
