/// What every index structure answers; one conformance suite holds them all to the oracle.
public protocol SpatialIndex: Sendable {
    init()
    init(bulk posts: [IndexedPost])
    var count: Int { get }
    func contains(id: Int64) -> Bool
    /// Inserts a post, replacing any post with the same id.
    mutating func insert(_ post: IndexedPost)
    @discardableResult mutating func remove(id: Int64) -> IndexedPost?
    /// Sets a stored post's like count; false if there is no such post.
    @discardableResult mutating func setLikes(id: Int64, to count: Int32) -> Bool
    /// Posts matching the search, in its order, strictly after its cursor, at most `limit`.
    func nearby(_ search: NearbySearch) -> [NearbyHit]
    /// Posts in the box, newest first, strictly after the cursor, at most `limit`.
    func browse(_ search: AreaSearch) -> [IndexedPost]
    func tagCounts(in box: GeoBox, filter: PostFilter) -> [TagID: Int]
    /// How many posts in the box match the filter.
    func count(in box: GeoBox, filter: PostFilter) -> Int
    func clusters(in box: GeoBox, filter: PostFilter, zoom: Int) -> (clusters: [Cluster], total: Int)
}

/// The structure the board uses; the grid stays as a second implementation the conformance
/// suite checks against the same oracle.
public typealias PostIndex = RTreeIndex

extension RTreeIndex: SpatialIndex {}
