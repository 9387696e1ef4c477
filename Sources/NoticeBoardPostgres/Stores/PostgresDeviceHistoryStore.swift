import Logging
import NoticeBoardCore
import PostgresNIO

/// A device's notes and replies on PostgreSQL (migration 0013's indexes), newest first.
public struct PostgresDeviceHistoryStore: DeviceHistoryStore {
    let client: DatabasePool
    let logger: Logger

    public init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func posts(madeBy deviceHash: String, limit: Int, before: (createdAt: Int64, id: Int64)?) async throws -> Page<DevicePost> {
        let beforeTime = before?.createdAt, beforeId = before?.id
        let found: [DevicePost] = try await StoreErrors.bounded { [self] in
            var posts: [DevicePost] = []
            for try await row in try await client.query(
                """
                SELECT \(unescaped: PostRow.columns(of: "p")), p.status FROM posts p
                WHERE p.device_hash = \(deviceHash) AND p.status <> 'deleted'
                  AND (\(beforeTime)::int8 IS NULL
                       OR (p.created_at, p.id) < (timestamptz 'epoch' + \(beforeTime)::int8 * interval '1 millisecond', \(beforeId)::int8))
                ORDER BY p.created_at DESC, p.id DESC LIMIT \(limit + 1)
                """, logger: logger)
            {
                let cells = try PostRow.cells(of: row, count: PostRow.columnCount + 1)
                let status = PostStatus(rawValue: try cells[PostRow.columnCount].decode(String.self)) ?? .hidden
                posts.append(DevicePost(post: try PostRow.decode(cells), status: status))
            }
            return posts
        }
        return Self.page(found, limit: limit) { ($0.post.createdAt, $0.post.id) }
    }

    public func replies(madeBy deviceHash: String, limit: Int, before: (createdAt: Int64, id: Int64)?) async throws -> Page<DeviceReply> {
        let beforeTime = before?.createdAt, beforeId = before?.id
        let found: [DeviceReply] = try await StoreErrors.bounded { [self] in
            var replies: [DeviceReply] = []
            for try await row in try await client.query(
                """
                SELECT \(unescaped: ReplyRow.columns(of: "r")), r.status FROM replies r JOIN posts p ON p.id = r.post_id
                WHERE r.device_hash = \(deviceHash) AND r.status <> 'deleted'
                  AND (\(beforeTime)::int8 IS NULL
                       OR (r.created_at, r.id) < (timestamptz 'epoch' + \(beforeTime)::int8 * interval '1 millisecond', \(beforeId)::int8))
                ORDER BY r.created_at DESC, r.id DESC LIMIT \(limit + 1)
                """, logger: logger)
            {
                let cells = try PostRow.cells(of: row, count: ReplyRow.columnCount + 1)
                let status = PostStatus(rawValue: try cells[ReplyRow.columnCount].decode(String.self)) ?? .hidden
                replies.append(DeviceReply(reply: try ReplyRow.decode(cells), status: status))
            }
            return replies
        }
        return Self.page(found, limit: limit) { ($0.reply.createdAt, $0.reply.id) }
    }

    /// The first `limit` of `found` (which holds one more when another page follows).
    private static func page<Item>(_ found: [Item], limit: Int, position: (Item) -> (Int64, Int64)) -> Page<Item> {
        guard found.count > limit else { return Page(items: found, nextCursor: nil) }
        let (createdAt, id) = position(found[limit - 1])
        return Page(items: Array(found.prefix(limit)), nextCursor: PageCursor.time(createdAt: createdAt, id: id).encoded)
    }
}
