import Logging
import PostgresNIO
import Synchronization

/// The write floor with the server's design and none of its work: the bodies waiting at a
/// moment go in one prepared `unnest` insert (one statement in flight by default, as
/// `PostInsertBatcher`), each caller answered with its row's id after the commit. No parsing,
/// validation or index of ours. Into the bare table each body is a text row; into `posts` it is a
/// post's message at a fixed place, so the table's own indexes and change trigger are paid.
final class BareBatcher: Sendable {
    enum Table: Sendable { case bare, posts }

    private struct State {
        var waiting: [(body: String, continuation: CheckedContinuation<Int64, any Error>)] = []
        var writers = 0
    }
    private let client: PostgresClient
    private let table: Table
    private let maxWriters: Int
    private let logger = Logger(label: "bare-batcher")
    private let state = Mutex(State())

    init(client: PostgresClient, table: Table, statementsInFlight: Int = 1) {
        self.client = client
        self.table = table
        maxWriters = statementsInFlight
    }

    func insert(_ body: String) async throws -> Int64 {
        try await withCheckedThrowingContinuation { continuation in
            let startsWriter = state.withLock { state -> Bool in
                state.waiting.append((body, continuation))
                guard state.writers < maxWriters else { return false }
                state.writers += 1
                return true
            }
            if startsWriter { Task { await self.writeWhileWaiting() } }
        }
    }

    private func writeWhileWaiting() async {
        while true {
            let batch = state.withLock { state in
                let batch = state.waiting.prefix(256)
                state.waiting.removeFirst(batch.count)
                if batch.isEmpty { state.writers -= 1 }
                return Array(batch)
            }
            guard !batch.isEmpty else { return }
            do {
                let bodies = batch.map(\.body)
                var ids: [Int64] = []
                switch table {
                case .bare: for try await id in try await client.execute(IntoBareTable(bodies: bodies), logger: logger) { ids.append(id) }
                case .posts: for try await id in try await client.execute(IntoPosts(bodies: bodies), logger: logger) { ids.append(id) }
                }
                ids.sort()
                for (waiting, id) in zip(batch, ids) { waiting.continuation.resume(returning: id) }
            } catch {
                for waiting in batch { waiting.continuation.resume(throwing: error) }
            }
        }
    }
}

/// A batch of bodies, one row each, their ids returned.
protocol BodiesInsert: PostgresPreparedStatement where Row == Int64 {
    var bodies: [String] { get }
}

extension BodiesInsert {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(bodies)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
}

struct IntoBareTable: BodiesInsert {
    static let sql = "INSERT INTO bench_raw (message) SELECT m FROM unnest($1::text[]) WITH ORDINALITY AS b(m, n) ORDER BY n RETURNING id"
    let bodies: [String]
}

struct IntoPosts: BodiesInsert {
    static let sql = """
        INSERT INTO posts (lat, lon, message, tag)
        SELECT 48.85, 2.35, m, 'food' FROM unnest($1::text[]) WITH ORDINALITY AS b(m, n) ORDER BY n RETURNING id
        """
    let bodies: [String]
}
