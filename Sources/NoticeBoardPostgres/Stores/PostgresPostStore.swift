import Logging
import NoticeBoardCore
import Metrics
import PostgresNIO
import Synchronization

/// The store of record on PostgreSQL. Every statement is parameterised.
public struct PostgresPostStore: PostStore {
    let client: DatabasePool
    /// Where the index loads from: a hot standby when the instance is given one.
    let reads: DatabasePool
    let logger: Logger
    /// Posts per chunk of `forEachVisiblePost`: large enough to keep PostgreSQL busy while the
    /// previous chunk is decoded, small enough to bound the memory a chunk takes.
    let loadChunkSize: Int
    let batcher: PostInsertBatcher

    public init(client: DatabasePool, reads: DatabasePool? = nil, logger: Logger, loadChunkSize: Int = 100_000) {
        precondition(loadChunkSize > 0)
        self.reads = reads ?? client
        self.loadChunkSize = loadChunkSize
        batcher = PostInsertBatcher(client: client, logger: logger)
        self.client = client
        self.logger = logger
    }

    private enum Attempt: Sendable {
        case created(Post)
        case keyTaken
    }

    public func create(_ draft: PostDraft, clientHash: String?, idempotency: IdempotencyRequest?) async throws -> CreateOutcome {
        guard let idempotency else { return .created(try await insert(draft, clientHash: clientHash)) }
        return try await StoreErrors.bounded { [self] in
            let attempt: Attempt = try await client.withTransaction(logger: logger) { connection in
                // A concurrent twin blocks here until the first commits, then finds the key taken.
                let claimed = try await connection.query(
                    """
                    INSERT INTO idempotency_keys (key, fingerprint) VALUES (\(idempotency.key), \(idempotency.fingerprint))
                    ON CONFLICT (key) DO NOTHING RETURNING key
                    """, logger: logger)
                var claimedKey = false
                for try await _ in claimed { claimedKey = true }
                if !claimedKey { return .keyTaken }
                let post = try await Self.insertRow(draft, clientHash: clientHash, on: connection, logger: logger)
                try await connection.query(
                    "UPDATE idempotency_keys SET post_id = \(post.id) WHERE key = \(idempotency.key)", logger: logger)
                return .created(post)
            }
            switch attempt {
            case .created(let post): return .created(post)
            case .keyTaken:
                guard let replayed = try await existingPost(for: idempotency) else {
                    throw StoreError.unavailable("the idempotency key has no post")
                }
                return replayed
            }
        }
    }

    /// A post without an idempotency key: one statement (one round trip), shared with the posts
    /// that arrive meanwhile (`PostInsertBatcher`).
    private func insert(_ draft: PostDraft, clientHash: String?) async throws -> Post {
        try await batcher.insert(draft, clientHash: clientHash)
    }

    private static func insertRow(_ draft: PostDraft, clientHash: String?, on connection: PostgresConnection, logger: Logger) async throws -> Post {
        let rows = try await connection.query(
            """
            INSERT INTO posts (lat, lon, heading, message, tag, accuracy, floor, beacon, client_hash, device_hash, expires_at)
            VALUES (\(draft.lat), \(draft.lon), \(draft.heading), \(draft.message), \(draft.tag), \(draft.accuracy),
                    \(draft.floor.map(Int16.init)), \(draft.beacon), \(clientHash), \(draft.deviceHash),
                    timestamptz 'epoch' + \(draft.expiresAt)::int8 * interval '1 millisecond')
            RETURNING \(unescaped: PostRow.columns())
            """, logger: logger)
        var inserted: Post?
        for try await row in rows { inserted = try PostRow.decode(PostRow.cells(of: row, count: PostRow.columnCount)) }
        guard let post = inserted else { throw StoreError.unavailable("the insert returned no row") }
        return post
    }

    public func existingPost(for idempotency: IdempotencyRequest) async throws -> CreateOutcome? {
        try await StoreErrors.bounded { [self] () async throws -> CreateOutcome? in
            let rows = try await client.query(
                """
                SELECT k.fingerprint, \(unescaped: PostRow.columns(of: "p"))
                FROM idempotency_keys k LEFT JOIN posts p ON p.id = k.post_id
                WHERE k.key = \(idempotency.key)
                """, logger: logger)
            for try await row in rows {
                let cells = try PostRow.cells(of: row, count: 1 + PostRow.columnCount)
                // The key was used for other content (another post, or a reply).
                guard try cells[0].decode(String.self) == idempotency.fingerprint else { throw StoreError.idempotencyConflict }
                guard try cells[1].decode(Int64?.self) != nil else { return nil }
                return .replayed(try PostRow.decode(cells, from: 1))
            }
            return nil
        }
    }

    /// Every visible post, in chunks of id order. Each chunk comes as one row of column arrays
    /// read straight from the wire format (`BinaryArrayColumn`), because decoding rows one by
    /// one spends most of the load in per-row machinery (generic tuple metadata, an async
    /// step). Chunks follow each other by key (the ids after the last one's highest), and the
    /// next is asked for as soon as one arrives, so PostgreSQL assembles it while this one is
    /// decoded. Each chunk is its own snapshot; whatever changes between them the change feed
    /// replays, from a sequence taken before the load began.
    public func forEachVisiblePost(_ body: (Post, _ version: Int64) throws -> Void) async throws {
        try await translatingErrors {
            var pending: Task<[PostgresCell], any Error>? = Task { try await fetchChunk(after: Int64.min) }
            // A failed load must not leave the next chunk's query running.
            defer { pending?.cancel() }
            while let chunk = pending {
                let cells = try await chunk.value
                guard cells.count == 18 else { throw StoreError.unavailable("the index load returned \(cells.count) columns") }
                let (count, highest, visible) = (try cells[0].decode(Int64.self), try cells[1].decode(Int64?.self), try cells[2].decode(Int64.self))
                pending = nil
                if count == loadChunkSize, let highest { pending = Task { try await fetchChunk(after: highest) } }
                if visible > 0 { try Self.decodeChunk(Array(cells[3...]), body) }
            }
        }
    }

    /// The next `loadChunkSize` posts by id above `id`, of any status: how many, their highest id,
    /// how many are visible, and the visible ones' columns. The chunk is taken by the primary key
    /// alone and the status filtered after it, so the plan does not hang on statistics: a table
    /// imported moments ago has none, and a status filter inside is then planned as a bitmap scan
    /// of every later row with a sort on disk, chunk after chunk.
    private func fetchChunk(after id: Int64) async throws -> [PostgresCell] {
        let rows = try await reads.query(
            """
            SELECT count(*), max(id), count(*) FILTER (WHERE visible),
                   array_agg(id) FILTER (WHERE visible), array_agg(lat) FILTER (WHERE visible), array_agg(lon) FILTER (WHERE visible),
                   array_agg(heading) FILTER (WHERE visible), array_agg(message) FILTER (WHERE visible),
                   array_agg(tag) FILTER (WHERE visible), array_agg(created_at) FILTER (WHERE visible),
                   array_agg(accuracy) FILTER (WHERE visible), array_agg(floor) FILTER (WHERE visible),
                   array_agg(beacon) FILTER (WHERE visible), array_agg(version) FILTER (WHERE visible),
                   array_agg(expires_at) FILTER (WHERE visible), array_agg(like_count::int8) FILTER (WHERE visible),
                   array_agg(reply_count::int8) FILTER (WHERE visible), array_agg(device_hash) FILTER (WHERE visible)
            FROM (SELECT *, status = 'visible' AS visible FROM posts WHERE id > \(id) ORDER BY id LIMIT \(loadChunkSize)) chunk
            """, logger: logger)
        var cells: [PostgresCell] = []
        for try await row in rows { cells = Array(row.makeRandomAccess()) }
        return cells
    }

    private static func decodeChunk(_ cells: [PostgresCell], _ body: (Post, Int64) throws -> Void) throws {
        let columns = try cells.map(BinaryArrayColumn.init)
        let (ids, lats, lons, headings, messages, tags, times, accuracies, floors, beacons, versions) =
            (columns[0], columns[1], columns[2], columns[3], columns[4], columns[5], columns[6], columns[7], columns[8], columns[9], columns[10])
        let (expiries, likes, replies, devices) = (columns[11], columns[12], columns[13], columns[14])
        guard columns.allSatisfy({ $0.count == ids.count }) else { throw StoreError.unavailable("the index load's columns differ in length") }
        for i in 0..<ids.count {
            guard let id = ids.int64(i), let lat = lats.double(i), let lon = lons.double(i), let message = messages.string(i),
                let tag = tags.string(i), let createdAt = times.milliseconds(i), let version = versions.int64(i),
                let likeCount = likes.int64(i), let replyCount = replies.int64(i)
            else { throw StoreError.unavailable("the index load returned a post without a required column") }
            try body(
                Post(
                    id: id, lat: lat, lon: lon, heading: headings.double(i), message: message, tag: tag, createdAt: createdAt,
                    accuracy: accuracies.double(i), floor: floors.int16(i).map(Int.init), beacon: beacons.string(i),
                    expiresAt: expiries.milliseconds(i), likeCount: Int(likeCount), replyCount: Int(replyCount), deviceHash: devices.string(i)),
                version)
        }
    }

    /// Forgets idempotency keys older than `days` (the contract keeps them at least 24 hours).
    @discardableResult
    public func purgeIdempotencyKeys(olderThanDays days: Int = 7) async throws -> Int {
        try await translatingErrors {
            let rows = try await client.query(
                "DELETE FROM idempotency_keys WHERE created_at < now() - \(days) * interval '1 day' RETURNING key",
                logger: logger)
            var purged = 0
            for try await _ in rows { purged += 1 }
            return purged
        }
    }

    public func isReachable() async -> Bool {
        do {
            return try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await client.query("SELECT 1", logger: logger)
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(2))
                    return false
                }
                let first = try await group.next() ?? false
                group.cancelAll()
                return first
            }
        } catch {
            return false
        }
    }

    private func translatingErrors<T>(_ body: () async throws -> T) async throws -> T {
        try await StoreErrors.translating(body)
    }
}

extension PostgresPostStore {
    /// A post's columns, status and version, from a table aliased `p`.
    static let stateColumns = PostRow.columns(of: "p") + ", p.status, p.version"

    static func state(_ row: PostgresRow) throws -> PostState {
        let cells = try PostRow.cells(of: row, count: PostRow.columnCount + 2)
        return PostState(
            post: try PostRow.decode(cells), status: PostStatus(rawValue: try cells[PostRow.columnCount].decode(String.self)) ?? .hidden,
            version: try cells[PostRow.columnCount + 1].decode(Int64.self))
    }
}
