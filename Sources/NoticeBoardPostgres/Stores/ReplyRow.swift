import NoticeBoardCore
import PostgresNIO

/// A reply's six columns (the last compares its device with its post's, joined as `post`).
enum ReplyRow {
    static let columnCount = 6

    static func columns(of table: String = "replies", post: String = "p") -> String {
        let t = table
        return "\(t).id, \(t).post_id, \(t).message, (extract(epoch FROM \(t).created_at) * 1000)::int8, \(t).device_hash, "
            + "coalesce(\(t).device_hash = \(post).device_hash, false)"
    }

    static func decode(_ row: PostgresRandomAccessRow, from start: Int = 0) throws -> Reply {
        Reply(
            id: try row[start].decode(Int64.self), postId: try row[start + 1].decode(Int64.self), message: try row[start + 2].decode(String.self),
            createdAt: try row[start + 3].decode(Int64.self), deviceHash: try row[start + 4].decode(String?.self),
            byAuthor: try row[start + 5].decode(Bool.self))
    }

    /// The reply in a LEFT JOIN's columns, `nil` when the join found none.
    static func decodeIfPresent(_ row: PostgresRandomAccessRow, from start: Int, post: Post) throws -> Reply? {
        guard try row[start].decode(Int64?.self) != nil else { return nil }
        return try decode(row, from: start)
    }
}
