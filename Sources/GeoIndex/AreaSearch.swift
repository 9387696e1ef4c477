/// A browse query: posts inside a box, newest first (ties by descending id).
public struct AreaSearch: Sendable {
    public var box: GeoBox
    public var filter: PostFilter
    /// Resume strictly after this `(createdAt, id)`.
    public var after: (createdAt: Int64, id: Int64)?
    public var limit: Int

    public init(box: GeoBox = .world, filter: PostFilter = .all, after: (createdAt: Int64, id: Int64)? = nil, limit: Int = 50) {
        self.box = box
        self.filter = filter
        self.after = after
        self.limit = limit
    }

    @inlinable
    public func matches(_ post: IndexedPost) -> Bool {
        guard box.contains(lat: post.lat, lon: post.lon), filter.matches(post) else { return false }
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
