import Logging
import NoticeBoardCore
import PostgresNIO

/// The `post_changes` table (filled by triggers on `posts`) and its `NOTIFY` channel, on which
/// writers announce their changes after commit. Changes may be read from a hot standby: no
/// notification reaches one, so a follower there goes by sequence alone.
public struct PostgresChangeFeed: ChangeFeed {
    static let channel = "post_changes"
    let client: DatabasePool
    let reads: DatabasePool
    let logger: Logger
    public let hearsAnnouncements: Bool

    /// `reads` (a standby's pool) when changes are to be followed from there.
    public init(client: DatabasePool, reads: DatabasePool? = nil, logger: Logger) {
        self.client = client
        self.reads = reads ?? client
        hearsAnnouncements = reads == nil
        self.logger = logger
    }

    public func startingSequence() async throws -> Int64 {
        try await StoreErrors.translating {
            let rows = try await reads.query(
                "SELECT coalesce(max(seq), 0)::int8 FROM post_changes WHERE changed_at < now() - interval '1 minute'",
                logger: logger)
            for try await latest in rows.decode(Int64.self) { return latest }
            return 0
        }
    }

    /// Within the store's deadline: a catch-up stuck on a connection that died with a restarting
    /// PostgreSQL would otherwise stop this instance following until it returned.
    public func changes(after sequence: Int64, limit: Int) async throws -> [PostChange] {
        try await StoreErrors.bounded { [self] in
            try await Self.decodeChanges(try await reads.query(Self.changesQuery(after: sequence, limit: limit), logger: logger))
        }
    }

    /// Changes after `sequence` joined with each post's state now (and the change's reply, if still
    /// visible). The lookups are LATERAL with LIMIT 1 so they stay primary-key probes: on a young
    /// table not yet analysed, a plain join was planned as a hash join over every post, run on
    /// every catch-up.
    static func changesQuery(after sequence: Int64, limit: Int) -> PostgresQuery {
        """
        SELECT c.seq, \(unescaped: PostRow.columns(of: "p")), p.status, p.version, \(unescaped: ReplyRow.columns(of: "r"))
        FROM (SELECT seq, post_id, reply_id FROM post_changes WHERE seq > \(sequence) ORDER BY seq LIMIT \(limit)) c
        CROSS JOIN LATERAL (SELECT * FROM posts WHERE id = c.post_id LIMIT 1) p
        LEFT JOIN LATERAL (SELECT * FROM replies WHERE id = c.reply_id AND status = 'visible' LIMIT 1) r ON true
        ORDER BY c.seq
        """
    }

    static func decodeChanges(_ rows: PostgresRowSequence) async throws -> [PostChange] {
        var changes: [PostChange] = []
        for try await row in rows {
            let cells = try PostRow.cells(of: row, count: 3 + PostRow.columnCount + ReplyRow.columnCount)
            let after = 1 + PostRow.columnCount
            let post = try PostRow.decode(cells, from: 1)
            changes.append(
                PostChange(
                    sequence: try cells[0].decode(Int64.self), post: post,
                    status: PostStatus(rawValue: try cells[after].decode(String.self)) ?? .hidden, version: try cells[after + 1].decode(Int64.self),
                    reply: try ReplyRow.decodeIfPresent(cells, from: after + 2, post: post)))
        }
        return changes
    }

    public func listen(wake: @escaping @Sendable () -> Void) async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: Self.channel) { notifications in
                // Changes made while LISTEN was being set up are found by the catch-up this triggers.
                wake()
                for try await _ in notifications { wake() }
            }
        }
    }

    public func announce() async throws {
        try await StoreErrors.bounded { [self] in
            _ = try await client.query("NOTIFY \(unescaped: Self.channel)", logger: logger)
        }
    }

    public func prune(olderThanHours hours: Int) async throws {
        try await StoreErrors.translating {
            try await client.query(
                "DELETE FROM post_changes WHERE changed_at < now() - \(hours) * interval '1 hour'", logger: logger)
        }
    }
}
