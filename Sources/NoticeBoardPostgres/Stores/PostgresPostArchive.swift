import Logging
import NIOCore
import NoticeBoardCore
import PostgresNIO

/// Bulk movement of posts in and out of the store: `noticeboard import` and `export`.
public struct PostgresPostArchive: Sendable {
    let client: DatabasePool
    let logger: Logger

    public init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Stores a batch in one transaction: `COPY` into a staging table, then one insert that
    /// skips rows imported before (same source id and content), so a re-run adds nothing.
    /// Returns how many posts were new.
    public func importBatch(_ posts: [ImportedPost]) async throws -> Int {
        guard !posts.isEmpty else { return 0 }
        return try await StoreErrors.translating {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query(
                    """
                    CREATE TEMPORARY TABLE import_staging (
                        source_id text, lat double precision, lon double precision, heading double precision,
                        message text, tag text, created_ms bigint, accuracy double precision, floor smallint,
                        beacon text, status text, expires_ms bigint, replies jsonb
                    ) ON COMMIT DROP
                    """, logger: logger)
                try await connection.copyFrom(
                    table: "import_staging",
                    columns: [
                        "source_id", "lat", "lon", "heading", "message", "tag", "created_ms", "accuracy", "floor", "beacon", "status",
                        "expires_ms", "replies",
                    ],
                    logger: logger
                ) { writer in
                    var buffer = ByteBuffer()
                    for post in posts {
                        Self.appendCopyRow(post, to: &buffer)
                        if buffer.readableBytes > 1 << 20 {
                            try await writer.write(buffer)
                            buffer.clear()
                        }
                    }
                    if buffer.readableBytes > 0 { try await writer.write(buffer) }
                }
                // The key is computed as rows are inserted (a separate pass rewrote every staged
                // row), in the file's order, which the new ids keep. A batch without threads needs
                // only its count back.
                let insert = """
                    INSERT INTO posts (lat, lon, heading, message, tag, created_at, accuracy, floor, beacon, status, import_key, expires_at)
                    SELECT lat, lon, heading, message, tag, \(Self.timestamp(milliseconds: "created_ms")), accuracy, floor, beacon, status,
                           key, \(Self.timestamp(milliseconds: "expires_ms"))
                    FROM (SELECT *, \(Self.importKey(of: "import_staging")) AS key FROM import_staging) s
                    ON CONFLICT (import_key) DO NOTHING
                    """
                guard posts.contains(where: { !$0.replies.isEmpty }) else {
                    let rows = try await connection.query("WITH added AS (\(unescaped: insert) RETURNING 1) SELECT count(*) FROM added", logger: logger)
                    for try await count in rows.decode(Int64.self) { return Int(count) }
                    return 0
                }
                let rows = try await connection.query("\(unescaped: insert) RETURNING id", logger: logger)
                var inserted: [Int64] = []
                for try await id in rows.decode(Int64.self) { inserted.append(id) }
                guard !inserted.isEmpty else { return 0 }
                // Threads of the posts new in this batch (a re-run adds none), then their counts.
                try await connection.query(
                    """
                    INSERT INTO replies (post_id, message, created_at, status)
                    SELECT p.id, r.message, \(unescaped: Self.timestamp(milliseconds: "r.created_ms")), r.status
                    FROM (SELECT DISTINCT ON (key) * FROM (SELECT *, \(unescaped: Self.importKey(of: "import_staging")) AS key, ctid AS position
                                                          FROM import_staging) k ORDER BY key, position) s
                    JOIN posts p ON p.import_key = s.key
                    CROSS JOIN LATERAL jsonb_to_recordset(s.replies) AS r(message text, created_ms bigint, status text)
                    WHERE p.id = ANY(\(inserted)::int8[]) ORDER BY p.id, r.created_ms
                    """, logger: logger)
                try await connection.query(
                    """
                    UPDATE posts p SET reply_count = c.visible
                    FROM (SELECT post_id, count(*) FILTER (WHERE status = 'visible')::int AS visible FROM replies
                          WHERE post_id = ANY(\(inserted)::int8[]) GROUP BY post_id) c
                    WHERE p.id = c.post_id AND c.visible > 0
                    """, logger: logger)
                return inserted.count
            }
        }
    }

    /// Streams every post that still has its text (visible, and hidden unless `visibleOnly`)
    /// in id order; rows arrive as PostgreSQL sends them, so memory stays constant.
    /// Each comes with its thread's visible and hidden replies, oldest first.
    public func forEachPost(visibleOnly: Bool, _ body: (Post, PostStatus, [ArchivedReply]) async throws -> Void) async throws {
        try await StoreErrors.translating {
            let statuses = visibleOnly ? ["visible"] : ["visible", "hidden"]
            let rows = try await client.query(
                """
                SELECT \(unescaped: PostRow.columns()), status,
                       CASE WHEN reply_count > 0 OR EXISTS (SELECT 1 FROM replies r WHERE r.post_id = posts.id) THEN
                           (SELECT array_agg(r.message || chr(31) || (extract(epoch FROM r.created_at) * 1000)::int8 || chr(31) || r.status
                                             ORDER BY r.created_at, r.id)
                            FROM replies r WHERE r.post_id = posts.id AND r.status IN ('visible', 'hidden')) END
                FROM posts WHERE status = ANY(\(statuses)) ORDER BY id
                """, logger: logger)
            for try await row in rows {
                let cells = try PostRow.cells(of: row, count: 2 + PostRow.columnCount)
                let status = PostStatus(rawValue: try cells[PostRow.columnCount].decode(String.self)) ?? .visible
                let thread = try cells[PostRow.columnCount + 1].decode([String]?.self) ?? []
                try await body(try PostRow.decode(cells), status, thread.compactMap(ArchivedReply.init(packed:)))
            }
        }
    }

    /// A staged row's import key: its source id and content, so the same row imported again is
    /// recognised. Keys stored by earlier versions were made by this same expression.
    static func importKey(of row: String) -> String {
        """
        encode(sha256(convert_to(concat_ws(chr(31), coalesce(\(row).source_id, ''), \(row).lat::text, \(row).lon::text,
            coalesce(\(row).heading::text, ''), \(row).message, \(row).tag, \(row).created_ms::text, coalesce(\(row).accuracy::text, ''),
            coalesce(\(row).floor::text, ''), coalesce(\(row).beacon, '')), 'UTF8')), 'hex')
        """
    }

    /// `timestamptz` for milliseconds since the epoch, exact in any year PostgreSQL holds (one
    /// product of milliseconds and an interval is rounded as a double past the year 2255).
    static func timestamp(milliseconds column: String) -> String {
        "(timestamptz 'epoch' + (\(column) / 1000) * interval '1 second' + (\(column) % 1000) * interval '1 millisecond')"
    }

    /// `[{"message", "created_ms", "status"}]` for the staging table's `jsonb` column.
    static func repliesJSON(_ replies: [ImportedReply]) -> String {
        let items = replies.map { reply in
            "{\"message\":\(JSONText.quoted(reply.message)),\"created_ms\":\(reply.createdAt),\"status\":\"\(reply.status.rawValue)\"}"
        }
        return "[" + items.joined(separator: ",") + "]"
    }

    static func appendCopyRow(_ post: ImportedPost, to buffer: inout ByteBuffer) {
        let draft = post.draft
        CopyText.appendRow(
            [
                post.sourceID, String(draft.lat), String(draft.lon), draft.heading.map { String($0) }, draft.message, draft.tag,
                String(post.createdAt), draft.accuracy.map { String($0) }, draft.floor.map { String($0) }, draft.beacon,
                post.status.rawValue, post.expiresAt.map { String($0) }, post.replies.isEmpty ? nil : Self.repliesJSON(post.replies),
            ], to: &buffer)
    }
}

/// A reply as exported with its note.
public struct ArchivedReply: Sendable, Equatable {
    public var message: String
    public var createdAt: Int64
    public var status: PostStatus

    /// `message \u{1F} milliseconds \u{1F} status`, as the export query packs it (a message holds no
    /// unit separator: control characters other than newline and tab are refused).
    init?(packed: String) {
        let parts = packed.split(separator: "\u{1F}", omittingEmptySubsequences: false)
        guard parts.count == 3, let time = Int64(parts[1]), let status = PostStatus(rawValue: String(parts[2])) else { return nil }
        (message, createdAt, self.status) = (String(parts[0]), time, status)
    }
}

/// JSON string literals for SQL-bound JSON text.
enum JSONText {
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}
