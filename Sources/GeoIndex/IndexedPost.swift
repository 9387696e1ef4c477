/// The hot part of a post: what the index filters and orders by. Message text and the other
/// display fields stay outside, in the board's post table.
public struct IndexedPost: Sendable, Equatable {
    public var id: Int64
    public var lat: Double
    public var lon: Double
    /// Degrees, or `nil` when the poster had no compass.
    public var heading: Double?
    public var tag: TagID
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var createdAt: Int64
    public var floor: Int16?
    /// Milliseconds; the post leaves the live board at this instant (it stays in the history).
    public var expiresAt: Int64?
    /// Devices that like the post: the popular order's numerator.
    public var likes: Int32
    /// The caller's handle for the rest of the post (the board's post table row); the index
    /// keeps it with the post and hands it back, nothing more.
    public var payload: Int32

    public init(
        id: Int64, lat: Double, lon: Double, heading: Double?, tag: TagID, createdAt: Int64, floor: Int16?, expiresAt: Int64? = nil,
        likes: Int32 = 0, payload: Int32 = -1
    ) {
        self.payload = payload
        self.id = id
        self.lat = lat
        self.lon = lon
        self.heading = heading
        self.tag = tag
        self.createdAt = createdAt
        self.floor = floor
        self.expiresAt = expiresAt
        self.likes = likes
    }

    /// Whether the post was on the board at `instant` as far as expiry goes.
    @inlinable
    public func isAlive(at instant: Int64) -> Bool {
        expiresAt.map { $0 > instant } ?? true
    }
}

/// A tag interned to a small integer.
public typealias TagID = UInt32
