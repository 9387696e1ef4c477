/// Attribute filters shared by every query shape.
public struct PostFilter: Sendable, Equatable {
    /// `nil` keeps every tag; otherwise a post must carry one of these (an empty set keeps none).
    public var tags: Set<TagID>?
    /// Inclusive lower bound on `createdAt`, in milliseconds.
    public var createdFrom: Int64?
    /// Exclusive upper bound on `createdAt`, in milliseconds.
    public var createdBefore: Int64?
    /// Keep only posts on exactly this floor (posts without a floor never match).
    public var floor: Int16?

    public init(tags: Set<TagID>? = nil, createdFrom: Int64? = nil, createdBefore: Int64? = nil, floor: Int16? = nil) {
        self.tags = tags
        self.createdFrom = createdFrom
        self.createdBefore = createdBefore
        self.floor = floor
    }

    public static let all = PostFilter()

    @inlinable
    public func matches(_ post: IndexedPost) -> Bool {
        if let tags, !tags.contains(post.tag) { return false }
        if let createdFrom, post.createdAt < createdFrom { return false }
        if let createdBefore, post.createdAt >= createdBefore { return false }
        if let floor, post.floor != floor { return false }
        return true
    }
}
