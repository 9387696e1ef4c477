import Logging
import NoticeBoardCore
import PostgresNIO

/// Replies on PostgreSQL. A reply, its post's reply count and its change-feed entry are
/// committed together; so are a reply's change of status, the count and the audit entry.
public struct PostgresReplyStore: ReplyStore {
    let client: DatabasePool
    let logger: Logger

    public init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Thrown inside a transaction to roll it back (a claimed idempotency key with it).
    private struct PostNotVisible: DeliberateRollback {}

    private enum Attempt: Sendable {
        case created(Reply, PostState)
        case keyTaken
    }

    public func create(postId: Int64, message: String, deviceHash: String?, clientHash: String?, idempotency: IdempotencyRequest?)
        async throws -> (outcome: ReplyOutcome, post: PostState?)?
    {
        let attempt: Attempt
        do {
            attempt = try await StoreErrors.bounded { [self] in
                try await client.withTransaction(logger: logger) { connection in
                    if let idempotency {
                        var claimed = false
                        for try await _ in try await connection.query(
                            """
                            INSERT INTO idempotency_keys (key, fingerprint) VALUES (\(idempotency.key), \(idempotency.fingerprint))
                            ON CONFLICT (key) DO NOTHING RETURNING key
                            """, logger: logger)
                        {
                            claimed = true
                        }
                        if !claimed { return .keyTaken }
                    }
                    var visible = false
                    for try await _ in try await connection.query(
                        "SELECT id FROM posts WHERE id = \(postId) AND \(unescaped: PostOpenness.openCondition) FOR UPDATE", logger: logger)
                    {
                        visible = true
                    }
                    guard visible else { throw PostNotVisible() }
                    var inserted: Reply?
                    for try await row in try await connection.query(
                        """
                        WITH r AS (
                            INSERT INTO replies (post_id, message, device_hash, client_hash)
                            VALUES (\(postId), \(message), \(deviceHash), \(clientHash)) RETURNING *)
                        SELECT \(unescaped: ReplyRow.columns(of: "r")) FROM r JOIN posts p ON p.id = r.post_id
                        """, logger: logger)
                    {
                        inserted = try ReplyRow.decode(PostRow.cells(of: row, count: ReplyRow.columnCount))
                    }
                    guard let reply = inserted else { throw StoreError.unavailable("the reply insert returned no row") }
                    var state: PostState?
                    for try await row in try await connection.query(
                        "UPDATE posts p SET reply_count = reply_count + 1 WHERE p.id = \(postId) RETURNING \(unescaped: PostgresPostStore.stateColumns)",
                        logger: logger)
                    {
                        state = try PostgresPostStore.state(row)
                    }
                    try await connection.query("INSERT INTO post_changes (post_id, reply_id) VALUES (\(postId), \(reply.id))", logger: logger)
                    if let idempotency {
                        try await connection.query(
                            "UPDATE idempotency_keys SET reply_id = \(reply.id) WHERE key = \(idempotency.key)", logger: logger)
                    }
                    guard let state else { throw StoreError.unavailable("the post of a reply vanished") }
                    return .created(reply, state)
                }
            }
        } catch is PostNotVisible {
            return nil
        }
        switch attempt {
        case .created(let reply, let state):
            return (.created(reply), state)
        case .keyTaken:
            guard let idempotency, let replayed = try await existingReply(for: idempotency) else {
                throw StoreError.unavailable("the idempotency key has no reply")
            }
            return (replayed, nil)
        }
    }

    public func existingReply(for idempotency: IdempotencyRequest) async throws -> ReplyOutcome? {
        try await StoreErrors.bounded { [self] () async throws -> ReplyOutcome? in
            for try await row in try await client.query(
                """
                SELECT k.fingerprint, \(unescaped: ReplyRow.columns(of: "r"))
                FROM idempotency_keys k LEFT JOIN replies r ON r.id = k.reply_id LEFT JOIN posts p ON p.id = r.post_id
                WHERE k.key = \(idempotency.key)
                """, logger: logger)
            {
                let cells = try PostRow.cells(of: row, count: 1 + ReplyRow.columnCount)
                // The key was used for other content (another reply, or a post).
                guard try cells[0].decode(String.self) == idempotency.fingerprint else { throw StoreError.idempotencyConflict }
                guard try cells[1].decode(Int64?.self) != nil else { return nil }
                return .replayed(try ReplyRow.decode(cells, from: 1))
            }
            return nil
        }
    }

    public func replies(postId: Int64, limit: Int, after: (createdAt: Int64, id: Int64)?) async throws -> Page<Reply>? {
        let afterTime = after?.createdAt, afterId = after?.id
        let found: [Reply]? = try await StoreErrors.bounded { [self] in
            var visible = false
            for try await _ in try await client.query("SELECT id FROM posts WHERE id = \(postId) AND status = 'visible'", logger: logger) {
                visible = true
            }
            guard visible else { return nil }
            var replies: [Reply] = []
            for try await row in try await client.query(
                """
                SELECT \(unescaped: ReplyRow.columns(of: "r")) FROM replies r JOIN posts p ON p.id = r.post_id
                WHERE r.post_id = \(postId) AND r.status = 'visible'
                  AND (\(afterTime)::int8 IS NULL
                       OR (r.created_at, r.id) > (timestamptz 'epoch' + \(afterTime)::int8 * interval '1 millisecond', \(afterId)::int8))
                ORDER BY r.created_at, r.id LIMIT \(limit + 1)
                """, logger: logger)
            {
                replies.append(try ReplyRow.decode(PostRow.cells(of: row, count: ReplyRow.columnCount)))
            }
            return replies
        }
        guard let found else { return nil }
        let next = found.count > limit ? PageCursor.time(createdAt: found[limit - 1].createdAt, id: found[limit - 1].id).encoded : nil
        return Page(items: Array(found.prefix(limit)), nextCursor: next)
    }

    public func reply(id: Int64) async throws -> Reply? {
        try await StoreErrors.bounded { [self] in
            for try await row in try await client.query(
                """
                SELECT \(unescaped: ReplyRow.columns(of: "r")) FROM replies r JOIN posts p ON p.id = r.post_id
                WHERE r.id = \(id) AND r.status = 'visible'
                """, logger: logger)
            {
                return try ReplyRow.decode(PostRow.cells(of: row, count: ReplyRow.columnCount))
            }
            return nil
        }
    }

    public func report(replyId: Int64, clientHash: String, reason: String, threshold: Int) async throws -> ReplyReportOutcome {
        let flow = ReportFlow(
            lock: """
                SELECT r.id FROM replies r JOIN posts p ON p.id = r.post_id
                WHERE r.id = \(replyId) AND r.status = 'visible' AND p.status = 'visible' FOR UPDATE OF r
                """,
            record: """
                INSERT INTO reply_reports (reply_id, client_hash, reason) VALUES (\(replyId), \(clientHash), \(reason))
                ON CONFLICT DO NOTHING RETURNING reply_id
                """,
            count: "SELECT count(*)::int8 FROM reply_reports WHERE reply_id = \(replyId)")
        return try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection in
                try await flow.run(threshold: threshold, on: connection, logger: logger) { reason in
                    try await Self.apply(.autoHide, to: replyId, actor: "system", reason: reason, on: connection, logger: logger)
                }
            }
        }
    }

    public func apply(_ action: ModerationAction, to replyId: Int64, actor: String, reason: String?) async throws -> ReplyStatusChange? {
        try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.apply(action, to: replyId, actor: actor, reason: reason, on: connection, logger: logger)
            }
        }
    }

    /// A reply's columns as moderators see them: then status, client hash and distinct reporters.
    static let moderatedColumns = ReplyRow.columns(of: "r")
        + ", r.status, r.client_hash, (SELECT count(*)::int8 FROM reply_reports x WHERE x.reply_id = r.id)"

    static func moderated(_ row: PostgresRow) throws -> ModeratedReply {
        let cells = try PostRow.cells(of: row, count: ReplyRow.columnCount + 3)
        let after = ReplyRow.columnCount
        return ModeratedReply(
            reply: try ReplyRow.decode(cells), status: PostStatus(rawValue: try cells[after].decode(String.self)) ?? .hidden,
            reportCount: try cells[after + 2].decode(Int.self), clientId: try cells[after + 1].decode(String?.self))
    }

    static func apply(
        _ action: ModerationAction, to replyId: Int64, actor: String, reason: String?, on connection: PostgresConnection, logger: Logger
    ) async throws -> ReplyStatusChange? {
        var found: (status: PostStatus, postId: Int64)?
        for try await (status, postId) in try await connection.query(
            "SELECT status, post_id FROM replies WHERE id = \(replyId) FOR UPDATE", logger: logger
        ).decode((String, Int64).self) {
            found = (PostStatus(rawValue: status) ?? .hidden, postId)
        }
        guard let (previous, postId) = found else { return nil }
        if previous == .deleted, action != .delete { throw ModerationError.deleted }
        let status = action.resultingStatus
        // The post row is locked before the reply changes, as replying locks it first.
        var post: PostState?
        let countChange = (status == .visible ? 1 : 0) - (previous == .visible ? 1 : 0)
        if countChange != 0 {
            for try await row in try await connection.query(
                """
                UPDATE posts p SET reply_count = reply_count + \(countChange) WHERE p.id = \(postId)
                RETURNING \(unescaped: PostgresPostStore.stateColumns)
                """, logger: logger)
            {
                post = try PostgresPostStore.state(row)
            }
            // Which reply came or went, for the other instances' open streams.
            try await connection.query("INSERT INTO post_changes (post_id, reply_id) VALUES (\(postId), \(replyId))", logger: logger)
        }
        var updated: ModeratedReply?
        for try await row in try await connection.query(
            """
            WITH r AS (
                UPDATE replies SET status = \(status.rawValue), message = CASE WHEN \(status.rawValue) = 'deleted' THEN '' ELSE message END
                WHERE id = \(replyId) RETURNING *)
            SELECT \(unescaped: moderatedColumns) FROM r JOIN posts p ON p.id = r.post_id
            """, logger: logger)
        {
            updated = try moderated(row)
        }
        try await connection.query(
            """
            INSERT INTO audit_log (actor, action, post_id, reply_id, reason)
            VALUES (\(actor), \(action.rawValue), \(postId), \(replyId), \(reason))
            """, logger: logger)
        return updated.map { ReplyStatusChange(reply: $0, post: post) }
    }

    public func moderationReplies(_ query: ReplyModerationQuery) async throws -> Page<ModeratedReply> {
        let status = query.status?.rawValue
        let afterTime = query.after?.createdAt, afterId = query.after?.id
        let found: [ModeratedReply] = try await StoreErrors.bounded { [self] in
            var replies: [ModeratedReply] = []
            for try await row in try await client.query(
                """
                SELECT \(unescaped: Self.moderatedColumns) FROM replies r JOIN posts p ON p.id = r.post_id
                WHERE (\(query.postId)::int8 IS NULL OR r.post_id = \(query.postId)::int8)
                  AND (\(query.from)::int8 IS NULL OR r.created_at >= timestamptz 'epoch' + \(query.from)::int8 * interval '1 millisecond')
                  AND (\(query.to)::int8 IS NULL OR r.created_at < timestamptz 'epoch' + \(query.to)::int8 * interval '1 millisecond')
                  AND (\(status)::text IS NULL OR r.status = \(status)::text)
                  AND (NOT \(query.reportedOnly) OR EXISTS (SELECT 1 FROM reply_reports x WHERE x.reply_id = r.id))
                  AND (\(query.clientId)::text IS NULL OR r.client_hash = \(query.clientId)::text)
                  AND (\(afterTime)::int8 IS NULL
                       OR (r.created_at, r.id) < (timestamptz 'epoch' + \(afterTime)::int8 * interval '1 millisecond', \(afterId)::int8))
                ORDER BY r.created_at DESC, r.id DESC LIMIT \(query.limit + 1)
                """, logger: logger)
            {
                replies.append(try Self.moderated(row))
            }
            return replies
        }
        let next = found.count > query.limit
            ? PageCursor.time(createdAt: found[query.limit - 1].reply.createdAt, id: found[query.limit - 1].reply.id).encoded : nil
        return Page(items: Array(found.prefix(query.limit)), nextCursor: next)
    }
}
