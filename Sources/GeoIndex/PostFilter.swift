/// Attribute filters shared by every query shape, and the place a post must lie in.
public struct PostFilter: Sendable, Equatable {
    /// `nil` keeps every tag; otherwise a post must carry one of these (an empty set keeps none).
    public var tags: Set<TagID>?
    /// Inclusive lower bound on `createdAt`, in milliseconds.
    public var createdFrom: Int64?
    /// Exclusive upper bound on `createdAt`, in milliseconds.
    public var createdBefore: Int64?
    /// Keep only posts on exactly this floor (posts without a floor never match).
    public var floor: Int16?
    /// Keep only posts on a floor in this range (a place's floors; posts without one never match).
    public var floors: ClosedRange<Int16>?
    /// Keep only posts inside this shape (edges inclusive).
    public var place: PlaceShape?
    /// Keep only posts not expired at this instant (milliseconds): `expiresAt` absent or later.
    public var aliveAt: Int64?

    public init(
        tags: Set<TagID>? = nil, createdFrom: Int64? = nil, createdBefore: Int64? = nil, floor: Int16? = nil,
        floors: ClosedRange<Int16>? = nil, place: PlaceShape? = nil, aliveAt: Int64? = nil
    ) {
        self.aliveAt = aliveAt
        self.tags = tags
        self.createdFrom = createdFrom
        self.createdBefore = createdBefore
        self.floor = floor
        self.floors = floors
        self.place = place
    }

    public static let all = PostFilter()

    @inlinable
    public func matches(_ post: IndexedPost) -> Bool {
        if let tags, !tags.contains(post.tag) { return false }
        if let createdFrom, post.createdAt < createdFrom { return false }
        if let createdBefore, post.createdAt >= createdBefore { return false }
        if let floor, post.floor != floor { return false }
        if let floors, !(post.floor.map(floors.contains) ?? false) { return false }
        if let aliveAt, !post.isAlive(at: aliveAt) { return false }
        if let place, !place.contains(lat: post.lat, lon: post.lon) { return false }
        return true
    }
}
