import DatabaseTestSupport
import NoticeBoardCore
import NoticeBoardPostgres
import PostgresNIO
import Testing

/// A database that refuses writes for a while (a standby not yet promoted during a failover
/// answers SQLSTATE 25006) makes a post "unavailable" (503, retry), never an internal error,
/// with or without an idempotency key.
@Suite(.timeLimit(.minutes(5))) struct ReadOnlyDatabaseTests {
    @Test func aReadOnlyDatabaseMakesPostsUnavailable() async throws {
        let endpoint = try await TestDatabase.fresh()
        _ = try await TestDatabase.withClient(endpoint) { client in
            try await client.query("ALTER DATABASE \(unescaped: endpoint.database) SET default_transaction_read_only = on", logger: TestDatabase.logger)
        }
        try await TestDatabase.withClient(endpoint) { client in
            let store = PostgresPostStore(client: DatabasePool(client), logger: TestDatabase.logger)
            let draft = PostDraft(lat: 1, lon: 2, message: "m", tag: "t")
            for key in [nil, IdempotencyRequest(key: "read-only", fingerprint: "a")] {
                do {
                    _ = try await store.create(draft, clientHash: nil, idempotency: key)
                    Issue.record("a write to a read-only database succeeded")
                } catch let error as StoreError {
                    guard case .unavailable = error else { Issue.record("\(error) is not 'unavailable'"); continue }
                }
            }
        }
    }
}
