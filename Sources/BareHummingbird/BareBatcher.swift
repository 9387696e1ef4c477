import PostgresNIO
import Synchronization

/// The write floor with the server's design and none of its work: each post's body is stored as
/// one text row of `bench_raw`, the bodies waiting at a moment in one `unnest` insert (one
/// statement in flight by default, as `PostInsertBatcher`), each caller answered with its row's
/// id after the commit. No parsing, validation, index, trigger or secondary index.
final class BareBatcher: Sendable {
    private struct State {
        var waiting: [(body: String, continuation: CheckedContinuation<Int64, any Error>)] = []
        var writers = 0
    }
    private let client: PostgresClient
    private let maxWriters: Int
    private let state = Mutex(State())

    init(client: PostgresClient, statementsInFlight: Int = 1) {
        self.client = client
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
                let rows = try await client.query(
                    "INSERT INTO bench_raw (message) SELECT m FROM unnest(\(bodies)::text[]) WITH ORDINALITY AS b(m, n) ORDER BY n RETURNING id")
                var ids: [Int64] = []
                for try await id in rows.decode(Int64.self) { ids.append(id) }
                ids.sort()
                for (waiting, id) in zip(batch, ids) { waiting.continuation.resume(returning: id) }
            } catch {
                for waiting in batch { waiting.continuation.resume(throwing: error) }
            }
        }
    }
}
