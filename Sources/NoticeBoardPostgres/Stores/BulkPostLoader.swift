import Logging
import NIOCore
import NoticeBoardCore
import PostgresNIO
import Synchronization

/// `noticeboard import` into a board that has no posts yet, inside one transaction that holds
/// the posts table: its secondary indexes are dropped, rows are copied straight into it, and
/// the indexes are built once at the end. Inserting a million rows into those indexes one by
/// one (the random import keys above all) is most of what a batch import costs.
public final class BulkPostLoader: Sendable {
    let connection: PostgresConnection
    let logger: Logger
    /// Import keys already loaded: a row seen before in the same file is skipped, as the batch
    /// path's `ON CONFLICT` skips it, while the unique index is away.
    private let seen = Mutex<Set<ImportKey.Digest>>([])
    private let threadsStaged = Atomic<Bool>(false)

    static let postColumns = [
        "lat", "lon", "heading", "message", "tag", "created_at", "accuracy", "floor", "beacon", "status", "import_key", "expires_at",
    ]

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Copies the batch's new posts into the table, in the file's order; returns how many were new.
    /// Batches are added one at a time.
    public func add(_ posts: [ImportedPost]) async throws -> Int {
        let fresh: [(ImportedPost, String, ImportKey.Numbers)] = seen.withLock { seen in
            posts.compactMap { post in
                let numbers = ImportKey.Numbers(post)
                let key = ImportKey(of: post, numbers: numbers)
                return seen.insert(key.digest).inserted ? (post, key.hex, numbers) : nil
            }
        }
        guard !fresh.isEmpty else { return 0 }
        let logger = self.logger
        try await connection.copyFrom(table: "posts", columns: Self.postColumns, logger: logger) { writer in
            var buffer = ByteBuffer()
            for (post, key, numbers) in fresh {
                CopyText.appendRow(Self.columns(of: post, key: key, numbers: numbers), to: &buffer)
                if buffer.readableBytes > 1 << 20 {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
        let threads = fresh.filter { !$0.0.replies.isEmpty }
        if !threads.isEmpty {
            threadsStaged.store(true, ordering: .relaxed)
            try await connection.copyFrom(table: "import_threads", columns: ["import_key", "replies"], logger: logger) { writer in
                var buffer = ByteBuffer()
                for (post, key, _) in threads {
                    CopyText.appendRow([key, PostgresPostArchive.repliesJSON(post.replies)], to: &buffer)
                }
                try await writer.write(buffer)
            }
        }
        return fresh.count
    }

    static func columns(of post: ImportedPost, key: String, numbers: ImportKey.Numbers) -> [String?] {
        [
            numbers.lat, numbers.lon, numbers.heading, post.draft.message, post.draft.tag, PostgresTimestampText.utc(milliseconds: post.createdAt),
            numbers.accuracy, numbers.floor, post.draft.beacon, post.status.rawValue, key,
            post.expiresAt.map { PostgresTimestampText.utc(milliseconds: $0) },
        ]
    }

    /// Builds the dropped indexes and constraints again, then the threads of the loaded posts.
    func finish(rebuilding definitions: [String]) async throws {
        for definition in definitions {
            try await connection.query(PostgresQuery(unsafeSQL: definition), logger: logger)
        }
        guard threadsStaged.load(ordering: .relaxed) else { return }
        try await connection.query(
            """
            INSERT INTO replies (post_id, message, created_at, status)
            SELECT p.id, r.message, \(unescaped: PostgresPostArchive.timestamp(milliseconds: "r.created_ms")), r.status
            FROM import_threads s JOIN posts p ON p.import_key = s.import_key
            CROSS JOIN LATERAL jsonb_to_recordset(s.replies) AS r(message text, created_ms bigint, status text)
            ORDER BY p.id, r.created_ms
            """, logger: logger)
        try await connection.query(
            """
            UPDATE posts p SET reply_count = c.visible
            FROM (SELECT post_id, count(*) FILTER (WHERE status = 'visible')::int AS visible FROM replies GROUP BY post_id) c
            WHERE p.id = c.post_id AND c.visible > 0
            """, logger: logger)
    }
}

extension PostgresPostArchive {
    /// Runs `body` with a bulk loader when the board has no posts at all, all in one
    /// transaction; returns false, having done nothing, when it has some or when the posts table
    /// cannot be had within `lockWait` (a long transaction elsewhere): then the batch path is used.
    /// While it runs, other instances' writes to posts wait (and time out after 5 s).
    public func loadIntoEmptyBoard(lockWait: Duration = .seconds(10), _ body: (BulkPostLoader) async throws -> Void) async throws -> Bool {
        try await StoreErrors.translating {
            do {
                return try await client.withTransaction(logger: logger) { connection in
                    let milliseconds = lockWait.components.seconds * 1000 + lockWait.components.attoseconds / 1_000_000_000_000_000
                    try await connection.query("SET LOCAL lock_timeout = \(unescaped: String(milliseconds))", logger: logger)
                    try await connection.query("LOCK TABLE posts IN ACCESS EXCLUSIVE MODE", logger: logger)
                    try await connection.query("SET LOCAL lock_timeout = 0", logger: logger)
                    let rows = try await connection.query("SELECT NOT EXISTS (SELECT 1 FROM posts)", logger: logger)
                    var empty = false
                    for try await value in rows.decode(Bool.self) { empty = value }
                    guard empty else { throw BoardNotEmpty() }
                    let definitions = try await Self.dropSecondaryIndexes(on: connection, logger: logger)
                    try await connection.query(
                        "CREATE TEMPORARY TABLE import_threads (import_key text, replies jsonb) ON COMMIT DROP", logger: logger)
                    let loader = BulkPostLoader(connection: connection, logger: logger)
                    try await body(loader)
                    try await loader.finish(rebuilding: definitions)
                    return true
                }
            } catch let error as PostgresTransactionError where error.closureError is BoardNotEmpty {
                return false
            } catch let error as PostgresTransactionError where (error.closureError as? PSQLError)?.serverInfo?[.sqlState] == "55P03" {
                return false
            } catch let error as PostgresTransactionError where error.closureError != nil && !(error.closureError is PSQLError) {
                // The caller's own failure (a file it cannot read, say) comes back as it was thrown.
                throw error.closureError!
            }
        }
    }

    private struct BoardNotEmpty: Error {}

    /// Drops every index and unique constraint of posts but its primary key (which the other
    /// tables' foreign keys need); returns the statements that make them again.
    static func dropSecondaryIndexes(on connection: PostgresConnection, logger: Logger) async throws -> [String] {
        var constraints: [(String, String)] = []
        let constraintRows = try await connection.query(
            """
            SELECT quote_ident(conname), pg_get_constraintdef(oid) FROM pg_constraint
            WHERE conrelid = 'posts'::regclass AND contype IN ('u', 'x') ORDER BY conname
            """, logger: logger)
        for try await (name, definition) in constraintRows.decode((String, String).self) { constraints.append((name, definition)) }
        var indexes: [(String, String)] = []
        let indexRows = try await connection.query(
            """
            SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i
            WHERE i.indrelid = 'posts'::regclass AND NOT i.indisprimary
              AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
            ORDER BY 1
            """, logger: logger)
        for try await (name, definition) in indexRows.decode((String, String).self) { indexes.append((name, definition)) }
        for (name, _) in constraints {
            try await connection.query(PostgresQuery(unsafeSQL: "ALTER TABLE posts DROP CONSTRAINT \(name)"), logger: logger)
        }
        for (name, _) in indexes {
            try await connection.query(PostgresQuery(unsafeSQL: "DROP INDEX \(name)"), logger: logger)
        }
        return indexes.map(\.1)
            + constraints.map { "ALTER TABLE posts ADD CONSTRAINT \($0.0) \($0.1)" }
    }
}
