import NoticeBoardCore
import PostgresNIO

/// Many posts in one statement, prepared once per connection (`PostInsertBatcher`'s statement).
/// Arrays of optionals do not bind: absent values travel as sentinels the statement turns back
/// into NULL.
struct InsertPosts: PostgresPreparedStatement {
    typealias Row = Post

    static let sql = """
        INSERT INTO posts (lat, lon, heading, message, tag, accuracy, floor, beacon, client_hash, device_hash, expires_at)
        SELECT lat, lon, nullif(heading, 'NaN'), message, tag, nullif(accuracy, 'NaN'), nullif(floor, -32768), nullif(beacon, ''),
            nullif(client_hash, ''), nullif(device_hash, ''),
            CASE WHEN expires_at = -9223372036854775808 THEN NULL ELSE timestamptz 'epoch' + expires_at * interval '1 millisecond' END
        FROM unnest($1::float8[], $2::float8[], $3::float8[], $4::text[], $5::text[], $6::float8[], $7::int2[], $8::text[],
            $9::text[], $10::text[], $11::int8[])
            WITH ORDINALITY AS t (lat, lon, heading, message, tag, accuracy, floor, beacon, client_hash, device_hash, expires_at, n)
        ORDER BY n
        RETURNING \(PostRow.columns())
        """

    let drafts: [PostDraft]
    let clientHashes: [String?]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 11)
        bindings.append(drafts.map(\.lat))
        bindings.append(drafts.map(\.lon))
        bindings.append(drafts.map { $0.heading ?? .nan })
        bindings.append(drafts.map(\.message))
        bindings.append(drafts.map(\.tag))
        bindings.append(drafts.map { $0.accuracy ?? .nan })
        bindings.append(drafts.map { $0.floor.map(Int16.init) ?? Int16.min })
        bindings.append(drafts.map { $0.beacon ?? "" })
        bindings.append(clientHashes.map { $0 ?? "" })
        bindings.append(drafts.map { $0.deviceHash ?? "" })
        bindings.append(drafts.map { $0.expiresAt ?? Int64.min })
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Post {
        try PostRow.decode(PostRow.cells(of: row, count: PostRow.columnCount))
    }
}
