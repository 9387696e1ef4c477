/// A post's fields as an answer writes them, its message as UTF-8 bytes in place: from the
/// board, the index's columns, the post table's row and the text arena's bytes, read under the
/// board's read lock with no `Post` or `String` made per post. The bytes are valid only inside
/// the call that hands the value out.
public struct PostBytes {
    public var id: Int64
    public var lat: Double
    public var lon: Double
    public var heading: Double?
    public var message: UnsafeRawBufferPointer
    public var tag: String
    public var createdAt: Int64
    public var accuracy: Double?
    public var floor: Int?
    public var beacon: String?
    public var expiresAt: Int64?
    public var likeCount: Int
    public var replyCount: Int
    /// Whether the request's device made the post (false without a device).
    public var mine: Bool
}

extension Post {
    /// The same fields as `PostBytes`, so a post built elsewhere (a store's row, a stream's
    /// event) is written by the same code as one read from the board.
    public func withBytes<R>(viewer deviceHash: String? = nil, _ body: (PostBytes) throws -> R) rethrows -> R {
        var text = message
        return try text.withUTF8 { utf8 in
            try body(PostBytes(
                id: id, lat: lat, lon: lon, heading: heading, message: UnsafeRawBufferPointer(utf8), tag: tag, createdAt: createdAt,
                accuracy: accuracy, floor: floor, beacon: beacon, expiresAt: expiresAt, likeCount: likeCount, replyCount: replyCount,
                mine: deviceHash != nil && self.deviceHash == deviceHash))
        }
    }
}
