import NoticeBoardCore
import PostgresNIO

/// A post's fourteen columns: selected and decoded here only, wherever a query returns posts.
enum PostRow {
    static let columnCount = 14

    /// The select list, in the order `decode` reads it.
    static func columns(of table: String = "posts") -> String {
        let t = table
        return "\(t).id, \(t).lat, \(t).lon, \(t).heading, \(t).message, \(t).tag, "
            + "(extract(epoch FROM \(t).created_at) * 1000)::int8, \(t).accuracy, \(t).floor, \(t).beacon, "
            + "(extract(epoch FROM \(t).expires_at) * 1000)::int8, \(t).like_count::int8, \(t).reply_count::int8, \(t).device_hash"
    }

    /// A row's cells, checked to be as many as the query selected (reading past them would trap).
    static func cells(of row: PostgresRow, count: Int) throws -> PostgresRandomAccessRow {
        let cells = row.makeRandomAccess()
        guard cells.count == count else { throw StoreError.unavailable("a row came with \(cells.count) columns, not \(count)") }
        return cells
    }

    /// The post in the row's columns `start ..< start + columnCount`.
    static func decode(_ row: PostgresRandomAccessRow, from start: Int = 0) throws -> Post {
        Post(
            id: try row[start].decode(Int64.self), lat: try row[start + 1].decode(Double.self), lon: try row[start + 2].decode(Double.self),
            heading: try row[start + 3].decode(Double?.self), message: try row[start + 4].decode(String.self),
            tag: try row[start + 5].decode(String.self), createdAt: try row[start + 6].decode(Int64.self),
            accuracy: try row[start + 7].decode(Double?.self), floor: try row[start + 8].decode(Int16?.self).map(Int.init),
            beacon: try row[start + 9].decode(String?.self), expiresAt: try row[start + 10].decode(Int64?.self),
            likeCount: try row[start + 11].decode(Int.self), replyCount: try row[start + 12].decode(Int.self),
            deviceHash: try row[start + 13].decode(String?.self))
    }
}
