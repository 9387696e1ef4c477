import Logging
import NoticeBoardCore
import PostgresNIO

/// Likes on PostgreSQL: the like row and the post's count change in one transaction, the post
/// row locked first, so concurrent likes of one post count exactly.
public struct PostgresLikeStore: LikeStore {
    let client: DatabasePool
    let logger: Logger

    public init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func setLike(postId: Int64, deviceHash: String, liked: Bool) async throws -> (state: PostState, changed: Bool)? {
        try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection in
                var visible = false
                for try await _ in try await connection.query(
                    "SELECT id FROM posts WHERE id = \(postId) AND \(unescaped: PostOpenness.openCondition) FOR UPDATE", logger: logger)
                {
                    visible = true
                }
                guard visible else { return nil }
                let change: PostgresQuery = liked
                    ? "INSERT INTO likes (post_id, device_hash) VALUES (\(postId), \(deviceHash)) ON CONFLICT DO NOTHING RETURNING post_id"
                    : "DELETE FROM likes WHERE post_id = \(postId) AND device_hash = \(deviceHash) RETURNING post_id"
                var changed = false
                for try await _ in try await connection.query(change, logger: logger) { changed = true }
                let update: PostgresQuery = changed
                    ? """
                    UPDATE posts p SET like_count = like_count + \(liked ? 1 : -1) WHERE p.id = \(postId)
                    RETURNING \(unescaped: PostgresPostStore.stateColumns)
                    """
                    : "SELECT \(unescaped: PostgresPostStore.stateColumns) FROM posts p WHERE p.id = \(postId)"
                for try await row in try await connection.query(update, logger: logger) { return (try PostgresPostStore.state(row), changed) }
                return nil
            }
        }
    }

    public func likedPosts(deviceHash: String, among ids: [Int64]) async throws -> Set<Int64> {
        try await StoreErrors.bounded { [self] in
            var liked: Set<Int64> = []
            for try await id in try await client.query(
                "SELECT post_id FROM likes WHERE device_hash = \(deviceHash) AND post_id = ANY(\(ids)::int8[])", logger: logger
            ).decode(Int64.self) {
                liked.insert(id)
            }
            return liked
        }
    }
}
