import DatabaseTestSupport
import NoticeBoardCore
import PostgresNIO
import Testing

@testable import NoticeBoardPostgres

/// PostgresNIO keeps a failed preparation on its connection and fails every later use of the
/// statement there: a connection whose preparation failed must not stay in the pool.
@Suite(.timeLimit(.minutes(5))) struct PreparedStatementTests {
    @Test func aFailedPreparationDoesNotFailTheStatementForEver() async throws {
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            let batcher = PostInsertBatcher(client: DatabasePool(client), logger: TestDatabase.logger)
            let draft = PostDraft(lat: 1, lon: 2, heading: nil, message: "prepared", tag: "food")
            try await client.query("ALTER TABLE posts RENAME TO posts_away", logger: TestDatabase.logger)
            await #expect(throws: (any Error).self) { try await batcher.insert(draft, clientHash: nil) }
            try await client.query("ALTER TABLE posts_away RENAME TO posts", logger: TestDatabase.logger)
            for attempt in 1...5 {
                let post = try await batcher.insert(draft, clientHash: nil)
                #expect(post.message == "prepared", "attempt \(attempt)")
            }
        }
    }
}
