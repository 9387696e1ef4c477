import Logging
import NoticeBoardCore
import Metrics
import PostgresNIO
import Synchronization

/// The store of record on PostgreSQL. Every statement is parameterised.
public struct PostgresPostStore: PostStore {
    let client: PostgresClient
    let logger: Logger
    /// Posts per chunk of `forEachVisiblePost` (a chunk of 100 000 is ten arrays of about 20 MB).
    let loadChunkSize: Int

    public init(client: PostgresClient, logger: Logger, loadChunkSize: Int = 100_000) {
        precondition(loadChunkSize > 0)
        self.loadChunkSize = loadChunkSize
        self.client = client
        self.logger = logger
    }

    /// The columns of a post, in the order `PostRow` decodes them.
    static func postColumns(of table: String = "posts") -> String {
        let t = table
        return "\(t).id, \(t).lat, \(t).lon, \(t).heading, \(t).message, \(t).tag, "
            + "(extract(epoch FROM \(t).created_at) * 1000)::int8, \(t).accuracy, \(t).floor, \(t).beacon"
    }
    typealias PostRow = (Int64, Double, Double, Double?, String, String, Int64, Double?, Int16?, String?)

    static func post(from row: PostRow) -> Post {
        Post(
            id: row.0, lat: row.1, lon: row.2, heading: row.3, message: row.4, tag: row.5, createdAt: row.6,
            accuracy: row.7, floor: row.8.map(Int.init), beacon: row.9)
    }

    private enum Attempt: Sendable {
        case created(Post)
        case keyTaken
    }

    public func create(_ draft: PostDraft, clientHash: String?, idempotency: IdempotencyRequest?) async throws -> CreateOutcome {
        try await StoreErrors.bounded { [self] in
            let attempt: Attempt = try await client.withTransaction(logger: logger) { connection in
                if let idempotency {
                    // A concurrent twin blocks here until the first commits, then finds the key taken.
                    let claimed = try await connection.query(
                        """
                        INSERT INTO idempotency_keys (key, fingerprint) VALUES (\(idempotency.key), \(idempotency.fingerprint))
                        ON CONFLICT (key) DO NOTHING RETURNING key
                        """, logger: logger)
                    var claimedKey = false
                    for try await _ in claimed { claimedKey = true }
                    if !claimedKey { return .keyTaken }
                }
                let rows = try await connection.query(
                    """
                    INSERT INTO posts (lat, lon, heading, message, tag, accuracy, floor, beacon, client_hash)
                    VALUES (\(draft.lat), \(draft.lon), \(draft.heading), \(draft.message), \(draft.tag), \(draft.accuracy),
                            \(draft.floor.map(Int16.init)), \(draft.beacon), \(clientHash))
                    RETURNING \(unescaped: Self.postColumns())
                    """, logger: logger)
                var inserted: Post?
                for try await row in rows.decode(PostRow.self) { inserted = Self.post(from: row) }
                guard let post = inserted else { throw StoreError.unavailable("the insert returned no row") }
                if let idempotency {
                    try await connection.query(
                        "UPDATE idempotency_keys SET post_id = \(post.id) WHERE key = \(idempotency.key)", logger: logger)
                }
                return .created(post)
            }
            switch attempt {
            case .created(let post): return .created(post)
            case .keyTaken:
                guard let replayed = try await existingPost(for: idempotency!) else {
                    throw StoreError.unavailable("the idempotency key has no post")
                }
                return replayed
            }
        }
    }

    public func existingPost(for idempotency: IdempotencyRequest) async throws -> CreateOutcome? {
        try await StoreErrors.bounded { [self] () async throws -> CreateOutcome? in
        let rows = try await client.query(
            """
            SELECT k.fingerprint, \(unescaped: Self.postColumns(of: "p"))
            FROM idempotency_keys k JOIN posts p ON p.id = k.post_id
            WHERE k.key = \(idempotency.key)
            """, logger: logger)
        for try await row in rows.decode((String, Int64, Double, Double, Double?, String, String, Int64, Double?, Int16?, String?).self) {
            guard row.0 == idempotency.fingerprint else { throw StoreError.idempotencyConflict }
            return .replayed(Self.post(from: (row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8, row.9, row.10)))
        }
        return nil
        }
    }

    /// Every visible post, in chunks of id order. Each chunk comes as one row of column arrays
    /// read straight from the wire format (`BinaryArrayColumn`): decoding a million rows one by
    /// one spent about 6 µs a row in per-row machinery (generic tuple metadata, an async step).
    /// While one chunk is decoded, PostgreSQL already assembles the next.
    public func forEachVisiblePost(_ body: (Post, _ version: Int64) throws -> Void) async throws {
        try await translatingErrors {
            // The first id of every chunk, from one walk of the primary key: ids may be sparse
            // (imports keep theirs), so chunks are counted in rows, not in id ranges.
            let starts = try await client.query(
                """
                SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM posts WHERE status = 'visible') numbered
                WHERE (n - 1) % \(loadChunkSize) = 0 ORDER BY id
                """, logger: logger)
            var firstIds: [Int64] = []
            for try await (id) in starts.decode(Int64.self) { firstIds.append(id) }
            guard !firstIds.isEmpty else { return }
            // Chunks by id bounds, so the next one can be asked for before this one is decoded
            // (the last is open-ended). Each chunk is its own snapshot; whatever changes between
            // them the change feed replays, from a sequence taken before the load began.
            let chunks = firstIds.indices.map { i in (firstIds[i], i + 1 < firstIds.count ? firstIds[i + 1] - 1 : Int64.max) }
            var pending: Task<[PostgresCell], any Error>? = Task { try await fetchChunk(chunks[0]) }
            // A failed load must not leave the next chunk's query running.
            defer { pending?.cancel() }
            for index in chunks.indices {
                let cells = try await pending!.value
                pending = index + 1 < chunks.count ? Task { [chunks] in try await fetchChunk(chunks[index + 1]) } : nil
                try Self.decodeChunk(cells, body)
            }
        }
    }

    private func fetchChunk(_ ids: (Int64, Int64)) async throws -> [PostgresCell] {
        let rows = try await client.query(
            """
            SELECT array_agg(id), array_agg(lat), array_agg(lon), array_agg(heading), array_agg(message), array_agg(tag),
                   array_agg(created_at), array_agg(accuracy), array_agg(floor), array_agg(beacon), array_agg(version)
            FROM posts WHERE status = 'visible' AND id BETWEEN \(ids.0) AND \(ids.1)
            """, logger: logger)
        var cells: [PostgresCell] = []
        for try await row in rows { cells = Array(row.makeRandomAccess()) }
        return cells
    }

    private static func decodeChunk(_ cells: [PostgresCell], _ body: (Post, Int64) throws -> Void) throws {
        guard cells.count == 11 else { throw StoreError.unavailable("the index load returned \(cells.count) columns") }
        let columns = try cells.map(BinaryArrayColumn.init)
        let (ids, lats, lons, headings, messages, tags, times, accuracies, floors, beacons, versions) =
            (columns[0], columns[1], columns[2], columns[3], columns[4], columns[5], columns[6], columns[7], columns[8], columns[9], columns[10])
        guard columns.allSatisfy({ $0.count == ids.count }) else { throw StoreError.unavailable("the index load's columns differ in length") }
        for i in 0..<ids.count {
            guard let id = ids.int64(i), let lat = lats.double(i), let lon = lons.double(i), let message = messages.string(i),
                let tag = tags.string(i), let createdAt = times.milliseconds(i), let version = versions.int64(i)
            else { throw StoreError.unavailable("the index load returned a post without a required column") }
            try body(
                Post(
                    id: id, lat: lat, lon: lon, heading: headings.double(i), message: message, tag: tag, createdAt: createdAt,
                    accuracy: accuracies.double(i), floor: floors.int16(i).map(Int.init), beacon: beacons.string(i)),
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

/// Connection failures become `StoreError.unavailable` (the HTTP layer answers 503); errors
/// thrown on purpose inside a transaction come out as themselves.
enum StoreErrors {
    /// How long a request's database work may take before the request gets 503: when
    /// PostgreSQL is down, PostgresNIO waits for a connection indefinitely.
    static let deadline: Duration = .seconds(5)
    static let inFlight = Atomic<Int>(0)
    // Made once, on first use (after `serve` has bootstrapped the metrics system), not per call.
    static let operationsInFlight = Gauge(label: "noticeboard_db_operations_in_flight")
    static let operationLatency = Timer(label: "noticeboard_db_operation_seconds")

    /// `translating`, bounded by `deadline`: the caller gets 503 then, and its cancellation
    /// reaches the work. The work is cancelled at the deadline, but a write that commits after
    /// all is found again by retrying with the same Idempotency-Key.
    static func bounded<T: Sendable>(
        deadline: Duration = StoreErrors.deadline, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = FirstOutcome<T>()
        let work = Task {
            // What requests wait for: database operations in flight (the pool's use) and their latency.
            operationsInFlight.record(Self.inFlight.wrappingAdd(1, ordering: .relaxed).newValue)
            let started = ContinuousClock.now
            let result = await Result(catching: { try await translating(body) })
            operationLatency.record(duration: ContinuousClock.now - started)
            operationsInFlight.record(Self.inFlight.wrappingSubtract(1, ordering: .relaxed).newValue)
            race.finish(result)
        }
        let timer = Task {
            try await Task.sleep(for: deadline)
            if race.finish(.failure(StoreError.unavailable("no answer from the database within \(deadline)"))) { work.cancel() }
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await race.value()
        } onCancel: {
            work.cancel()
            race.finish(.failure(CancellationError()))
        }
    }

    static func translating<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StoreError {
            throw error
        } catch let error as ModerationError {
            throw error
        } catch let error as PostgresTransactionError {
            if let inner = error.closureError as? StoreError { throw inner }
            if let inner = error.closureError as? ModerationError { throw inner }
            if let inner = error.closureError as? PSQLError, inner.serverInfo?[.sqlState]?.hasPrefix("22") == true {
                throw StoreError.invalidInput(inner.serverInfo?[.message] ?? "invalid value")
            }
            throw StoreError.unavailable(String(reflecting: error.closureError ?? error.beginError ?? error.commitError ?? error))
        } catch let error as PSQLError where error.code != .server {
            throw StoreError.unavailable("\(error.code)")
        } catch let error as PSQLError where error.serverInfo?[.sqlState]?.hasPrefix("22") == true {
            throw StoreError.invalidInput(error.serverInfo?[.message] ?? "invalid value")
        } catch let error as PSQLError where isPassing(error.serverInfo?[.sqlState]) {
            throw StoreError.unavailable(error.serverInfo?[.message] ?? "the database is not available")
        }
    }

    /// SQLSTATE classes of a database that is restarting, overloaded or failing over: connection
    /// exceptions (08), serialization failures and deadlocks (40), insufficient resources (53),
    /// operator intervention (57: shutting down, starting up), system errors (58). Retrying helps.
    static func isPassing(_ sqlState: String?) -> Bool {
        guard let sqlState else { return false }
        return ["08", "40", "53", "57", "58"].contains(String(sqlState.prefix(2)))
    }
}

/// The first of several results; later ones are dropped. `value()` waits for it.
final class FirstOutcome<T: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<T, any Error>?)
        case finished(Result<T, any Error>)
    }
    private let state = Mutex<State>(.waiting(nil))

    init() {}

    /// Records `result` if none came before; returns whether it did.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let waiter: CheckedContinuation<T, any Error>?? = state.withLock { state in
            guard case .waiting(let continuation) = state else { return .none }
            state = .finished(result)
            return .some(continuation)
        }
        guard case .some(let continuation) = waiter else { return false }
        continuation?.resume(with: result)
        return true
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let finished: Result<T, any Error>? = state.withLock { state in
                switch state {
                case .finished(let result): return result
                case .waiting: state = .waiting(continuation); return nil
                }
            }
            if let finished { continuation.resume(with: finished) }
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
