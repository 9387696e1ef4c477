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

    public init(id: Int64, lat: Double, lon: Double, heading: Double?, tag: TagID, createdAt: Int64, floor: Int16?) {
        self.id = id
        self.lat = lat
        self.lon = lon
        self.heading = heading
        self.tag = tag
        self.createdAt = createdAt
        self.floor = floor
    }
}

/// A tag interned to a small integer.
public typealias TagID = UInt32
