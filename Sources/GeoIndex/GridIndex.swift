/// The simple structure: posts bucketed in a fixed grid of 0.05° cells, each query covering its
/// area conservatively and refining every candidate exactly, then sorting. It is the second
/// implementation the conformance suite and the benchmark hold the R-tree against.
public struct GridIndex: SpatialIndex {
    private var cells: [Int: [IndexedPost]] = [:]
    private var cellOfPost: [Int64: Int] = [:]

    public init() {}

    public init(bulk posts: [IndexedPost]) {
        for post in posts { insert(post) }
    }

    public var count: Int { cellOfPost.count }

    public func contains(id: Int64) -> Bool { cellOfPost[id] != nil }

    /// Inserts a post, replacing any post with the same id.
    public mutating func insert(_ post: IndexedPost) {
        remove(id: post.id)
        let key = CellGrid.key(lat: post.lat, lon: post.lon)
        cells[key, default: []].append(post)
        cellOfPost[post.id] = key
    }

    @discardableResult
    public mutating func remove(id: Int64) -> IndexedPost? {
        guard let key = cellOfPost.removeValue(forKey: id), var bucket = cells[key],
            let slot = bucket.firstIndex(where: { $0.id == id })
        else { return nil }
        let removed = bucket.remove(at: slot)
        cells[key] = bucket.isEmpty ? nil : bucket
        return removed
    }

    @discardableResult
    public mutating func setLikes(id: Int64, to count: Int32) -> Bool {
        guard let key = cellOfPost[id], let slot = cells[key]?.firstIndex(where: { $0.id == id }) else { return false }
        cells[key]![slot].likes = count
        return true
    }

    /// Posts matching the search, in its order, strictly after its cursor, at most `limit`.
    public func nearby(_ search: NearbySearch) -> [NearbyHit] {
        var hits: [NearbyHit] = []
        forEachCandidate(in: CellGrid.cover(lat: search.lat, lon: search.lon, radius: search.radius)) { post in
            guard let hit = search.hit(for: post) else { return }
            if let after = search.after, !hit.comes(after: after) { return }
            hits.append(hit)
        }
        hits.sort { NearbyHit.precedes($0, $1, in: search.order) }
        return Array(hits.prefix(search.limit))
    }

    /// Posts in the box, newest first, strictly after the cursor, at most `limit`.
    public func browse(_ search: AreaSearch) -> [IndexedPost] {
        var found: [IndexedPost] = []
        forEachCandidate(in: CellGrid.cover(of: search.box)) { post in
            if search.matches(post) { found.append(post) }
        }
        found.sort(by: search.precedes)
        return Array(found.prefix(search.limit))
    }

    /// How many posts in the box match the filter, per tag.
    public func tagCounts(in box: GeoBox, filter: PostFilter) -> [TagID: Int] {
        var counts: [TagID: Int] = [:]
        forEachCandidate(in: CellGrid.cover(of: box)) { post in
            if box.contains(lat: post.lat, lon: post.lon), filter.matches(post) { counts[post.tag, default: 0] += 1 }
        }
        return counts
    }

    /// How many posts in the box match the filter.
    public func count(in box: GeoBox, filter: PostFilter) -> Int {
        var total = 0
        forEachCandidate(in: CellGrid.cover(of: box)) { post in
            if box.contains(lat: post.lat, lon: post.lon), filter.matches(post) { total += 1 }
        }
        return total
    }

    /// The matching posts in the box grouped for display at a map zoom level, and their total.
    public func clusters(in box: GeoBox, filter: PostFilter, zoom: Int) -> (clusters: [Cluster], total: Int) {
        var grid = ClusterGrid(zoom: zoom)
        var total = 0
        forEachCandidate(in: CellGrid.cover(of: box)) { post in
            guard box.contains(lat: post.lat, lon: post.lon), filter.matches(post) else { return }
            grid.add(post)
            total += 1
        }
        return (grid.clusters(), total)
    }

    /// Every post in the cover's cells, each once. A cover larger than the set of non-empty
    /// cells is answered by walking the non-empty cells instead.
    private func forEachCandidate(in cover: CellGrid.Cover, _ body: (IndexedPost) -> Void) {
        if cover.cellCount > cells.count {
            for bucket in cells.values {
                for post in bucket { body(post) }
            }
            return
        }
        cover.forEachKey { key in
            guard let bucket = cells[key] else { return }
            for post in bucket { body(post) }
        }
    }
}
