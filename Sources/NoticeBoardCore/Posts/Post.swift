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
    /// Milliseconds; `nil` for a note that never leaves the live board.
    public var expiresAt: Int64?
    public var likeCount: Int
    /// Visible replies only.
    public var replyCount: Int
    /// The keyed hash of the device key it was posted with, if any: never written out, it
    /// answers `mine`, author deletes and replies' `byAuthor`.
    public var deviceHash: String?

    public init(
        id: Int64, lat: Double, lon: Double, heading: Double?, message: String, tag: String, createdAt: Int64,
        accuracy: Double?, floor: Int?, beacon: String?, expiresAt: Int64? = nil, likeCount: Int = 0, replyCount: Int = 0,
        deviceHash: String? = nil
    ) {
        self.expiresAt = expiresAt
        self.likeCount = likeCount
        self.replyCount = replyCount
        self.deviceHash = deviceHash
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

extension Post {
    /// Whether the note is still on the live board at `instant` (milliseconds).
    public func isAlive(at instant: Int64) -> Bool { expiresAt.map { $0 > instant } ?? true }
}

/// Where a post stands in moderation.
public enum PostStatus: String, Sendable, CaseIterable {
    case visible, hidden, deleted
}

/// The contract's post object: every field written, absent optional ones as `null`, the time
/// as RFC 3339 with milliseconds. Wrappers (nearby's distance, the moderators' status, an
/// export's status) add their members to the same object after it.
extension Post: Encodable {
    enum CodingKeys: String, CodingKey {
        case id, lat, lon, heading, message, tag, createdAt, accuracy, floor, beacon, likeCount, replyCount, expiresAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(lat, forKey: .lat)
        try container.encode(lon, forKey: .lon)
        try container.encode(heading, forKey: .heading)
        try container.encode(message, forKey: .message)
        try container.encode(tag, forKey: .tag)
        try container.encode(Timestamp.format(milliseconds: createdAt), forKey: .createdAt)
        try container.encode(accuracy, forKey: .accuracy)
        try container.encode(floor, forKey: .floor)
        try container.encode(beacon, forKey: .beacon)
        try container.encode(likeCount, forKey: .likeCount)
        try container.encode(replyCount, forKey: .replyCount)
        try container.encode(expiresAt.map(Timestamp.format(milliseconds:)), forKey: .expiresAt)
    }
}
