/// A browse query: posts inside a box, newest first (ties by descending id).
public struct AreaSearch: Sendable {
    public var box: GeoBox
    public var filter: PostFilter
    /// Resume strictly after this `(createdAt, id)`.
    public var after: (createdAt: Int64, id: Int64)?
    public var limit: Int
    /// Order by `PopularScore` at this instant instead of newest first.
    public var popularAt: Int64?
    /// With `popularAt`: resume strictly after this `(score, id)`.
    public var popularAfter: (score: Double, id: Int64)?

    public init(
        box: GeoBox = .world, filter: PostFilter = .all, after: (createdAt: Int64, id: Int64)? = nil, limit: Int = 50,
        popularAt: Int64? = nil, popularAfter: (score: Double, id: Int64)? = nil
    ) {
        self.box = box
        self.filter = filter
        self.after = after
        self.limit = limit
        self.popularAt = popularAt
        self.popularAfter = popularAfter
    }

    /// The post's popular score at `popularAt` (0 when ordering by time).
    @inlinable
    public func score(of post: IndexedPost) -> Double {
        popularAt.map { PopularScore.score(likes: post.likes, createdAt: post.createdAt, at: $0) } ?? 0
    }

    /// Whether `a` comes before `b` in this search's order.
    @inlinable
    public func precedes(_ a: IndexedPost, _ b: IndexedPost) -> Bool {
        guard popularAt != nil else { return Self.newestFirst(a, b) }
        return PopularScore.comes(score: score(of: b), id: b.id, after: score(of: a), a.id)
    }

    @inlinable
    public func matches(_ post: IndexedPost) -> Bool {
        guard box.contains(lat: post.lat, lon: post.lon), filter.matches(post) else { return false }
        if popularAt != nil {
            guard let popularAfter else { return true }
            return PopularScore.comes(score: score(of: post), id: post.id, after: popularAfter.score, popularAfter.id)
        }
        if let after {
            return post.createdAt < after.createdAt || (post.createdAt == after.createdAt && post.id < after.id)
        }
        return true
    }

    @inlinable
    public static func newestFirst(_ a: IndexedPost, _ b: IndexedPost) -> Bool {
        a.createdAt > b.createdAt || (a.createdAt == b.createdAt && a.id > b.id)
    }
}
