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

    /// The newest change older than a minute, read at one end of the `changed_at` index (the
    /// highest number among all changes older than a minute means reading a day of them, a
    /// million after an import), or the number an import leaves as settled when that is higher.
    public func startingSequence() async throws -> Int64 {
        try await StoreErrors.translating {
            let rows = try await reads.query(
                """
                SELECT greatest(
                    (SELECT seq FROM settled_changes WHERE id = 1),
                    (SELECT seq FROM post_changes WHERE changed_at < now() - interval '1 minute' ORDER BY changed_at DESC LIMIT 1),
                    0)::int8
                """,
                logger: logger)
            for try await latest in rows.decode(Int64.self) { return latest }
            return 0
        }
    }

    /// Within the store's deadline: a catch-up stuck on a connection that died with a restarting
    /// PostgreSQL would otherwise stop this instance following until it returned.
    public func changes(after sequence: Int64, limit: Int, ownInFull: Bool) async throws -> [FeedEntry] {
        try await StoreErrors.bounded { [self] in
            try await reads.execute(
                ChangesAfter(sequence: sequence, limit: limit, ownOrigin: ownInFull ? nil : ChangeOrigin.thisProcess), logger: logger)
        }
    }

    /// Announcements name their process: a process's own wake nobody here, as it applied its
    /// changes when it made them (its tick still moves its cursor past them).
    public func listen(wake: @escaping @Sendable () -> Void) async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: Self.channel) { notifications in
                // Changes made while LISTEN was being set up are found by the catch-up this triggers.
                wake()
                for try await notification in notifications where notification.payload != ChangeOrigin.thisProcess { wake() }
            }
        }
    }

    public func announce() async throws {
        try await StoreErrors.bounded { [self] in
            _ = try await client.query("SELECT pg_notify(\(Self.channel), \(ChangeOrigin.thisProcess))", logger: logger)
        }
    }

    public func prune(olderThanHours hours: Int) async throws {
        _ = try await StoreErrors.translating {
            try await client.query(
                "DELETE FROM post_changes WHERE changed_at < now() - \(hours) * interval '1 hour'", logger: logger)
        }
    }
}
