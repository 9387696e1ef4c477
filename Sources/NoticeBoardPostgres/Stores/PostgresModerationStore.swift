import Logging
import NoticeBoardCore
import PostgresNIO

/// Moderation on PostgreSQL: status changes with their audit entries in one transaction,
/// reports counted once per client, moderators and hashed tokens.
public struct PostgresModerationStore: ModerationStore, ModeratorAccountStore {
    let client: DatabasePool
    let logger: Logger

    public init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// A post's columns, then status, client hash, distinct reporters and version.
    static let moderatedColumns = PostRow.columns(of: "p")
        + ", p.status, p.client_hash, (SELECT count(*)::int8 FROM reports r WHERE r.post_id = p.id), p.version"

    /// A row of `moderatedColumns`: the post as moderators see it, and its version.
    static func moderated(_ row: PostgresRow) throws -> (post: ModeratedPost, version: Int64) {
        let cells = try PostRow.cells(of: row, count: PostRow.columnCount + 4)
        let after = PostRow.columnCount
        let post = ModeratedPost(
            post: try PostRow.decode(cells), status: PostStatus(rawValue: try cells[after].decode(String.self)) ?? .hidden,
            reportCount: try cells[after + 2].decode(Int.self), clientId: try cells[after + 1].decode(String?.self))
        return (post, try cells[after + 3].decode(Int64.self))
    }

    public func apply(_ action: ModerationAction, to postId: Int64, actor: String, reason: String?) async throws -> StatusChange? {
        try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.apply(action, to: postId, actor: actor, reason: reason, on: connection, logger: logger)
            }
        }
    }

    static func apply(
        _ action: ModerationAction, to postId: Int64, actor: String, reason: String?, on connection: PostgresConnection, logger: Logger
    ) async throws -> StatusChange? {
        var previous: PostStatus?
        for try await status in try await connection.query(
            "SELECT status FROM posts WHERE id = \(postId) FOR UPDATE", logger: logger
        ).decode(String.self) {
            previous = PostStatus(rawValue: status)
        }
        guard let previous else { return nil }
        if previous == .deleted, action != .delete { throw ModerationError.deleted }
        let status = action.resultingStatus.rawValue
        var updated: (post: ModeratedPost, version: Int64)?
        for try await row in try await connection.query(
            """
            UPDATE posts p SET status = \(status), message = CASE WHEN \(status) = 'deleted' THEN '' ELSE p.message END
            WHERE p.id = \(postId) RETURNING \(unescaped: moderatedColumns)
            """, logger: logger
        ) {
            updated = try moderated(row)
        }
        try await connection.query(
            "INSERT INTO audit_log (actor, action, post_id, reason) VALUES (\(actor), \(action.rawValue), \(postId), \(reason))",
            logger: logger)
        return updated.map { StatusChange(post: $0.post, previous: previous, version: $0.version) }
    }

    public func deleteByAuthor(postId: Int64, deviceHash: String) async throws -> AuthorDeleteOutcome {
        try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection in
                var found: (status: String, device: String?)?
                for try await row in try await connection.query(
                    "SELECT status, device_hash FROM posts WHERE id = \(postId) FOR UPDATE", logger: logger
                ).decode((String, String?).self) {
                    found = row
                }
                // A hidden note is under review: like every public endpoint, this one no longer
                // finds it, so its author cannot erase what the moderators are to judge.
                guard let found, found.status == PostStatus.visible.rawValue else { return .notFound }
                guard found.device == deviceHash else { return .forbidden }
                guard let change = try await Self.apply(.authorDelete, to: postId, actor: "author", reason: nil, on: connection, logger: logger)
                else { return .notFound }
                return .deleted(change)
            }
        }
    }

    public func report(postId: Int64, clientHash: String, reason: String, threshold: Int) async throws -> PostReportOutcome {
        let flow = ReportFlow(
            lock: "SELECT id FROM posts WHERE id = \(postId) AND \(unescaped: PostOpenness.openCondition) FOR UPDATE",
            record: """
                INSERT INTO reports (post_id, client_hash, reason) VALUES (\(postId), \(clientHash), \(reason))
                ON CONFLICT DO NOTHING RETURNING post_id
                """,
            count: "SELECT count(*)::int8 FROM reports WHERE post_id = \(postId)")
        return try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection in
                try await flow.run(threshold: threshold, on: connection, logger: logger) { reason in
                    try await Self.apply(.autoHide, to: postId, actor: "system", reason: reason, on: connection, logger: logger)
                }
            }
        }
    }

    public func moderationPosts(_ query: ModerationQuery) async throws -> Page<ModeratedPost> {
        // The box as longitude ranges on canonical longitudes (180 is written -180).
        var wests: [Double] = [], easts: [Double] = []
        if let box = query.box {
            for part in box.nonCrossingParts {
                wests.append(part.west)
                easts.append(part.east)
                if part.east == 180 { (wests, easts) = (wests + [-180], easts + [-180]) }
            }
        }
        let status = query.status?.rawValue
        let (westEdges, eastEdges) = (wests, easts)
        let afterTime = query.after?.createdAt, afterId = query.after?.id
        let posts: [ModeratedPost] = try await StoreErrors.bounded { [self] in
            var posts: [ModeratedPost] = []
            for try await row in try await client.query(
                """
                SELECT \(unescaped: Self.moderatedColumns) FROM posts p
                WHERE (cardinality(\(query.tags)::text[]) = 0 OR p.tag = ANY(\(query.tags)::text[]))
                  AND (\(query.from)::int8 IS NULL OR p.created_at >= timestamptz 'epoch' + \(query.from)::int8 * interval '1 millisecond')
                  AND (\(query.to)::int8 IS NULL OR p.created_at < timestamptz 'epoch' + \(query.to)::int8 * interval '1 millisecond')
                  AND (\(status)::text IS NULL OR p.status = \(status)::text)
                  AND (NOT \(query.reportedOnly) OR EXISTS (SELECT 1 FROM reports r WHERE r.post_id = p.id))
                  AND (\(query.clientId)::text IS NULL OR p.client_hash = \(query.clientId)::text)
                  AND (\(query.box == nil) OR (p.lat BETWEEN \(query.box?.south ?? -90) AND \(query.box?.north ?? 90)
                       AND EXISTS (SELECT 1 FROM unnest(\(westEdges)::float8[], \(eastEdges)::float8[]) AS b(w, e)
                                   WHERE (CASE WHEN p.lon = 180 THEN -180 ELSE p.lon END) BETWEEN b.w AND b.e)))
                  AND (\(afterTime)::int8 IS NULL
                       OR (p.created_at, p.id) < (timestamptz 'epoch' + \(afterTime)::int8 * interval '1 millisecond', \(afterId)::int8))
                ORDER BY p.created_at DESC, p.id DESC
                LIMIT \(query.limit + 1)
                """, logger: logger
            ) {
                posts.append(try Self.moderated(row).post)
            }
            return posts
        }
        let next = posts.count > query.limit
            ? PageCursor.time(createdAt: posts[query.limit - 1].post.createdAt, id: posts[query.limit - 1].post.id).encoded : nil
        return Page(items: Array(posts.prefix(query.limit)), nextCursor: next)
    }

    public func moderatedPost(id: Int64) async throws -> ModeratedPost? {
        try await StoreErrors.bounded { [self] in
            for try await row in try await client.query(
                "SELECT \(unescaped: Self.moderatedColumns) FROM posts p WHERE p.id = \(id)", logger: logger
            ) {
                return try Self.moderated(row).post
            }
            return nil
        }
    }

    public func audit(limit: Int, before id: Int64?) async throws -> Page<AuditEntry> {
        let entries: [AuditEntry] = try await StoreErrors.bounded { [self] in
            var entries: [AuditEntry] = []
            for try await row in try await client.query(
                """
                SELECT id, (extract(epoch FROM at) * 1000)::int8, actor, action, post_id, reason, reply_id FROM audit_log
                WHERE (\(id)::int8 IS NULL OR id < \(id)::int8) ORDER BY id DESC LIMIT \(limit + 1)
                """, logger: logger
            ).decode((Int64, Int64, String, String, Int64?, String?, Int64?).self) {
                entries.append(AuditEntry(id: row.0, at: row.1, actor: row.2, action: row.3, postId: row.4, reason: row.5, replyId: row.6))
            }
            return entries
        }
        let next = entries.count > limit ? PageCursor.time(createdAt: entries[limit - 1].at, id: entries[limit - 1].id).encoded : nil
        return Page(items: Array(entries.prefix(limit)), nextCursor: next)
    }

    // MARK: Moderators and tokens

    public func addModerator(username: String, passwordHash: String) async throws -> Bool {
        try await changedRows(
            "INSERT INTO moderators (username, password_hash) VALUES (\(username), \(passwordHash)) ON CONFLICT DO NOTHING RETURNING id")
    }

    public func removeModerator(username: String) async throws -> Bool {
        // Its tokens go with it (ON DELETE CASCADE): revoked at once.
        try await changedRows("DELETE FROM moderators WHERE username = \(username) RETURNING id")
    }

    public func setPassword(username: String, passwordHash: String) async throws -> Bool {
        try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection in
                var changed = false
                for try await _ in try await connection.query(
                    "UPDATE moderators SET password_hash = \(passwordHash) WHERE username = \(username) RETURNING id", logger: logger)
                {
                    changed = true
                }
                // A new password ends every session of the old one.
                try await connection.query(
                    "DELETE FROM auth_tokens WHERE moderator_id = (SELECT id FROM moderators WHERE username = \(username))",
                    logger: logger)
                return changed
            }
        }
    }

    public func moderators() async throws -> [String] {
        try await StoreErrors.bounded { [self] in
            var names: [String] = []
            for try await name in try await client.query("SELECT username FROM moderators ORDER BY username", logger: logger)
                .decode(String.self)
            {
                names.append(name)
            }
            return names
        }
    }

    public func passwordHash(username: String) async throws -> String? {
        try await StoreErrors.bounded { [self] in
            for try await hash in try await client.query(
                "SELECT password_hash FROM moderators WHERE username = \(username)", logger: logger
            ).decode(String.self) {
                return hash
            }
            return nil
        }
    }

    public func storeToken(hash: String, username: String, expiresAt: Int64) async throws {
        _ = try await changedRows(
            """
            INSERT INTO auth_tokens (token_hash, moderator_id, expires_at)
            SELECT \(hash), id, timestamptz 'epoch' + \(expiresAt) * interval '1 millisecond' FROM moderators WHERE username = \(username)
            RETURNING token_hash
            """)
    }

    public func moderator(tokenHash: String) async throws -> String? {
        try await StoreErrors.bounded { [self] in
            for try await name in try await client.query(
                """
                SELECT m.username FROM auth_tokens t JOIN moderators m ON m.id = t.moderator_id
                WHERE t.token_hash = \(tokenHash) AND t.expires_at > now()
                """, logger: logger
            ).decode(String.self) {
                return name
            }
            return nil
        }
    }

    public func revokeToken(hash: String) async throws {
        _ = try await changedRows("DELETE FROM auth_tokens WHERE token_hash = \(hash) RETURNING token_hash")
    }

    private func changedRows(_ query: PostgresQuery) async throws -> Bool {
        try await StoreErrors.bounded { [self] in
            var changed = false
            for try await _ in try await client.query(query, logger: logger) { changed = true }
            return changed
        }
    }
}
