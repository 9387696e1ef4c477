import Logging
import NIOCore
import NoticeBoardCore
import PostgresNIO

/// Bulk movement of posts in and out of the store: `noticeboard import` and `export`.
public struct PostgresPostArchive: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
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
                        beacon text, status text
                    ) ON COMMIT DROP
                    """, logger: logger)
                try await connection.copyFrom(
                    table: "import_staging",
                    columns: ["source_id", "lat", "lon", "heading", "message", "tag", "created_ms", "accuracy", "floor", "beacon", "status"],
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
                let rows = try await connection.query(
                    """
                    INSERT INTO posts (lat, lon, heading, message, tag, created_at, accuracy, floor, beacon, status, import_key)
                    SELECT lat, lon, heading, message, tag, timestamptz 'epoch' + created_ms * interval '1 millisecond', accuracy, floor, beacon, status,
                           encode(sha256(convert_to(concat_ws(chr(31), coalesce(source_id, ''), lat::text, lon::text,
                               coalesce(heading::text, ''), message, tag, created_ms::text, coalesce(accuracy::text, ''),
                               coalesce(floor::text, ''), coalesce(beacon, '')), 'UTF8')), 'hex')
                    FROM import_staging
                    ON CONFLICT (import_key) DO NOTHING
                    RETURNING id
                    """, logger: logger)
                var inserted = 0
                for try await _ in rows { inserted += 1 }
                return inserted
            }
        }
    }

    /// Streams every post that still has its text (visible, and hidden unless `visibleOnly`)
    /// in id order; rows arrive as PostgreSQL sends them, so memory stays constant.
    public func forEachPost(visibleOnly: Bool, _ body: (Post, PostStatus) async throws -> Void) async throws {
        try await StoreErrors.translating {
            let statuses = visibleOnly ? ["visible"] : ["visible", "hidden"]
            let rows = try await client.query(
                """
                SELECT \(unescaped: PostRow.columns()), status FROM posts
                WHERE status = ANY(\(statuses)) ORDER BY id
                """, logger: logger)
            for try await row in rows {
                let cells = try PostRow.cells(of: row, count: 1 + PostRow.columnCount)
                let status = PostStatus(rawValue: try cells[PostRow.columnCount].decode(String.self)) ?? .visible
                try await body(try PostRow.decode(cells), status)
            }
        }
    }

    /// One line of `COPY … FROM STDIN` text format: tab-separated, `\N` for null, with
    /// backslash, tab, newline and carriage return escaped.
    static func appendCopyRow(_ post: ImportedPost, to buffer: inout ByteBuffer) {
        let draft = post.draft
        let columns: [String?] = [
            post.sourceID, String(draft.lat), String(draft.lon), draft.heading.map { String($0) }, draft.message, draft.tag,
            String(post.createdAt), draft.accuracy.map { String($0) }, draft.floor.map { String($0) }, draft.beacon,
            post.status.rawValue,
        ]
        for (index, column) in columns.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
            guard let column else {
                buffer.writeStaticString("\\N")
                continue
            }
            for byte in column.utf8 {
                switch byte {
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                default: buffer.writeInteger(byte)
                }
            }
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }
}
