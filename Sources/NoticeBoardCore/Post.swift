/// A note left at a place: the post object of the contract.
public struct Post: Sendable, Equatable {
    public var id: Int64
    public var lat: Double
    public var lon: Double
    public var heading: Double?
    public var message: String
    public var tag: String
    /// Milliseconds since the Unix epoch (the contract's precision).
    public var createdAt: Int64
    public var accuracy: Double?
    public var floor: Int?
    public var beacon: String?

    public init(
        id: Int64, lat: Double, lon: Double, heading: Double?, message: String, tag: String, createdAt: Int64,
        accuracy: Double?, floor: Int?, beacon: String?
    ) {
        self.id = id
        self.lat = lat
        self.lon = lon
        self.heading = heading
        self.message = message
        self.tag = tag
        self.createdAt = createdAt
        self.accuracy = accuracy
        self.floor = floor
        self.beacon = beacon
    }
}

/// Where a post stands in moderation.
public enum PostStatus: String, Sendable, CaseIterable {
    case visible, hidden, deleted
}
