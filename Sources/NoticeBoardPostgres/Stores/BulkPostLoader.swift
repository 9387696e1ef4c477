import Logging
import NIOCore
import NoticeBoardCore
import PostgresNIO
import Synchronization

/// `noticeboard import` into a board that has no posts yet, inside one transaction that holds
/// posts and post_changes: the secondary indexes of posts are dropped and its change triggers
/// disabled, rows are copied straight into it through one `COPY` open for the whole file, and
/// then the indexes are built once and one statement files every post's change. Inserting a
/// million rows into those indexes one by one (the random import keys above all), and a
/// trigger's transition table per batch, were most of what a batch import costs.
public final class BulkPostLoader: Sendable {
    let writer: PostgresCopyFromWriter
    /// Import keys already loaded: a row seen before in the same file is skipped, as the batch
    /// path's `ON CONFLICT` skips it, while the unique index is away.
    private let seen = Mutex(DigestSet())
    /// `import_threads` rows, copied once the posts' `COPY` is done: a connection runs one at a time.
    private let threadRows = Mutex<ByteBuffer>(ByteBuffer())

    static let postColumns = [
        "lat", "lon", "heading", "message", "tag", "created_at", "accuracy", "floor", "beacon", "status", "import_key", "expires_at",
    ]

    init(writer: PostgresCopyFromWriter) {
        self.writer = writer
    }

    /// Copies the batch's new posts into the table, in the file's order; returns how many were new.
    /// Batches are added one at a time; each returns once PostgreSQL's connection has taken it.
    public func add(_ posts: [ImportedPost]) async throws -> Int {
        // Rows are written straight into `COPY` text (no column strings in between): this runs
        // for every row of the file, beside the parser and PostgreSQL on the same cores.
        var buffers: [ByteBuffer] = []
        var buffer = ByteBuffer()
        buffer.reserveCapacity(Self.bufferBytes + 4096)
        var fresh = 0
        var scratch: [UInt8] = []
        scratch.reserveCapacity(512)
        seen.withLock { seen in
            for post in posts {
                let numbers = ImportKey.Numbers(post)
                let key = ImportKey(of: post, numbers: numbers, scratch: &scratch)
                guard seen.insert(key.digest) else { continue }
                fresh += 1
                Self.appendRow(of: post, key: key, numbers: numbers, to: &buffer)
                if !post.replies.isEmpty {
                    threadRows.withLock { CopyText.appendRow([key.hex, PostgresPostArchive.repliesJSON(post.replies)], to: &$0) }
                }
                if buffer.readableBytes > Self.bufferBytes {
                    buffers.append(buffer)
                    buffer = ByteBuffer()
                    buffer.reserveCapacity(Self.bufferBytes + 4096)
                }
            }
        }
        if buffer.readableBytes > 0 { buffers.append(buffer) }
        for buffer in buffers { try await writer.write(buffer) }
        return fresh
    }

    private static let bufferBytes = 1 << 20

    /// One post's `COPY` line, its columns in `postColumns` order.
    static func appendRow(of post: ImportedPost, key: ImportKey, numbers: ImportKey.Numbers, to buffer: inout ByteBuffer) {
        let draft = post.draft
        buffer.writeString(numbers.lat)
        CopyText.appendUnescaped(numbers.lon, to: &buffer)
        CopyText.appendUnescaped(numbers.heading, to: &buffer)
        CopyText.appendText(draft.message, after: true, to: &buffer)
        CopyText.appendText(draft.tag, after: true, to: &buffer)
        buffer.writeInteger(UInt8(ascii: "\t"))
        PostgresTimestampText.append(milliseconds: post.createdAt, to: &buffer)
        CopyText.appendUnescaped(numbers.accuracy, to: &buffer)
        CopyText.appendUnescaped(numbers.floor, to: &buffer)
        CopyText.appendText(draft.beacon, after: true, to: &buffer)
        CopyText.appendUnescaped(post.status.rawValue, to: &buffer)
        buffer.writeInteger(UInt8(ascii: "\t"))
        key.appendHex(to: &buffer)
        buffer.writeInteger(UInt8(ascii: "\t"))
        if let expiresAt = post.expiresAt {
            PostgresTimestampText.append(milliseconds: expiresAt, to: &buffer)
        } else {
            buffer.writeStaticString("\\N")
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    /// The staged threads' rows, in `COPY` text (empty when no post had one).
    var stagedThreads: ByteBuffer { threadRows.withLock { $0 } }
}

extension PostgresPostArchive {
    /// Runs `body` with a bulk loader when the board has no posts at all, all in one
    /// transaction; returns false, having done nothing, when it has some or when posts and
    /// post_changes cannot be had within `lockWait` (a long transaction elsewhere): then the
    /// batch path is used. While it runs, other instances' writes to posts wait (and time out
    /// after 5 s); their followers go on reading post_changes.
    public func loadIntoEmptyBoard(lockWait: Duration = .seconds(10), _ body: (BulkPostLoader) async throws -> Void) async throws -> Bool {
        try await StoreErrors.translating {
            do {
                return try await client.withTransaction(logger: logger) { connection in
                    let milliseconds = lockWait.components.seconds * 1000 + lockWait.components.attoseconds / 1_000_000_000_000_000
                    try await connection.query("SET LOCAL lock_timeout = \(unescaped: String(milliseconds))", logger: logger)
                    // In the order every writer takes them (a post, then its change). Holding
                    // post_changes against writers means no other change number is outstanding
                    // when this load files its own: at its commit every number up to its last is.
                    try await connection.query("LOCK TABLE posts IN ACCESS EXCLUSIVE MODE", logger: logger)
                    try await connection.query("LOCK TABLE post_changes IN EXCLUSIVE MODE", logger: logger)
                    try await connection.query("SET LOCAL lock_timeout = 0", logger: logger)
                    let rows = try await connection.query("SELECT NOT EXISTS (SELECT 1 FROM posts)", logger: logger)
                    var empty = false
                    for try await value in rows.decode(Bool.self) { empty = value }
                    guard empty else { throw BoardNotEmpty() }
                    let definitions = try await Self.dropSecondaryIndexes(on: connection, logger: logger)
                    let triggers = try await Self.disableChangeTriggers(on: connection, logger: logger)
                    var threads = ByteBuffer()
                    try await connection.copyFrom(table: "posts", columns: BulkPostLoader.postColumns, logger: logger) { writer in
                        let loader = BulkPostLoader(writer: writer)
                        try await body(loader)
                        threads = loader.stagedThreads
                    }
                    // The import keys' sort (~100 MB at a million rows) spills to disk at the default 64 MB.
                    try await connection.query("SET LOCAL maintenance_work_mem = '256MB'", logger: logger)
                    for definition in definitions {
                        try await connection.query(PostgresQuery(unsafeSQL: definition), logger: logger)
                    }
                    if threads.readableBytes > 0 { try await Self.addThreads(threads, on: connection, logger: logger) }
                    try await Self.fileChanges(enabling: triggers, on: connection, logger: logger)
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

    /// Disables the triggers that file a change for each statement's posts (the load files all
    /// of its own in one statement at the end, without a transition table per `COPY`); returns
    /// their names. Read from the catalogue, so a trigger a later migration adds is included.
    static func disableChangeTriggers(on connection: PostgresConnection, logger: Logger) async throws -> [String] {
        var names: [String] = []
        let rows = try await connection.query(
            """
            SELECT quote_ident(tgname) FROM pg_trigger
            WHERE tgrelid = 'posts'::regclass AND tgfoid = 'record_post_changes'::regproc AND tgenabled = 'O' ORDER BY 1
            """, logger: logger)
        for try await name in rows.decode(String.self) { names.append(name) }
        for name in names {
            try await connection.query(PostgresQuery(unsafeSQL: "ALTER TABLE posts DISABLE TRIGGER \(name)"), logger: logger)
        }
        return names
    }

    /// Files one change for every post (the board was empty, so each is new), in id order,
    /// marks every number up to the last as settled, and enables the change triggers again.
    static func fileChanges(enabling triggers: [String], on connection: PostgresConnection, logger: Logger) async throws {
        // The columns' defaults taken once for the load, not per row (a settings lookup and a clock each: 0.2 s at a million).
        try await connection.query(
            """
            INSERT INTO post_changes (post_id, changed_at, origin)
            SELECT id, (SELECT clock_timestamp()), (SELECT current_setting('noticeboard.origin', true)) FROM posts ORDER BY id
            """, logger: logger)
        try await connection.query(
            "UPDATE settled_changes SET seq = (SELECT coalesce(max(seq), 0) FROM post_changes) WHERE id = 1", logger: logger)
        for name in triggers {
            try await connection.query(PostgresQuery(unsafeSQL: "ALTER TABLE posts ENABLE TRIGGER \(name)"), logger: logger)
        }
    }

    /// The loaded posts' threads, from their `import_threads` rows, and the posts' reply counts.
    static func addThreads(_ rows: ByteBuffer, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "CREATE TEMPORARY TABLE import_threads (import_key text, replies jsonb) ON COMMIT DROP", logger: logger)
        try await connection.copyFrom(table: "import_threads", columns: ["import_key", "replies"], logger: logger) { writer in
            try await writer.write(rows)
        }
        try await connection.query(
            """
            INSERT INTO replies (post_id, message, created_at, status)
            SELECT p.id, r.message, \(unescaped: timestamp(milliseconds: "r.created_ms")), r.status
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
