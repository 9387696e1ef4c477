import DatabaseTestSupport
import Foundation
import NoticeBoardCore
import NoticeBoardPostgres
import PostgresNIO
import Testing

/// A `post.created` on its way when its post is hidden: whichever of the hide, the dispatcher's
/// turn and the recording of the delivery comes first, the webhook gets `post.removed` once.
@Suite(.timeLimit(.minutes(2))) struct RemovalRecordTests {
    @Test(arguments: [false, true]) func aDeliveryRecordedAfterItsPostWasHiddenQueuesTheRemoval(batched: Bool) async throws {
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            let pool = DatabasePool(client)
            let store = PostgresOutboxStore(client: pool, logger: TestDatabase.logger)
            func scalar(_ sql: String) async throws -> Int64 {
                for try await value in try await client.query(PostgresQuery(unsafeSQL: sql)).decode(Int64.self) { return value }
                throw StoreError.unavailable("no row")
            }
            let webhook = try await scalar(
                "INSERT INTO webhooks (url, secret, area, tags, created_by) VALUES ('https://example.org/h', 'sixteen-characters', '{\"bbox\":[-180,-90,180,90]}', '{}', 'm') RETURNING id")
            var made: [Int64] = []
            for _ in 0..<3 { made.append(try await scalar("INSERT INTO posts (lat, lon, message, tag) VALUES (1, 2, 'n', 'food') RETURNING id")) }
            let posts = made
            for id in posts {
                _ = try await client.query(PostgresQuery(unsafeSQL:
                    "INSERT INTO deliveries (delivery_id, webhook_id, event, post_id, body) VALUES (gen_random_uuid(), \(webhook), 'post.created', \(id), '\\x7b7d')"))
            }
            let claimed = try await store.claimDue(limit: 10, leaseMilliseconds: 30_000)
            #expect(claimed.count == 3)
            // All three on their way; then hidden, and the turn plans the removals while they are.
            for id in posts { _ = try await client.query(PostgresQuery(unsafeSQL: "UPDATE posts SET status = 'hidden' WHERE id = \(id)")) }
            let queuedByTurn = try await store.withDispatchTurn(deadline: .seconds(30)) { turn in try await turn.queueRemovals(of: posts) }
            #expect(queuedByTurn == 0, "nothing was delivered yet: the turn cannot follow up")
            #expect(try await scalar("SELECT count(*) FROM deliveries WHERE status = 'skipped'") == 0, "on their way: not skipped")
            // Their outcomes arrive (one by one, or together as a busy sender writes them):
            // delivered, so each is followed by its removal.
            if batched {
                try await store.recordDelivered(claimed)
            } else {
                for delivery in claimed { try await store.record(.delivered, of: delivery) }
            }
            #expect(try await scalar("SELECT count(*) FROM deliveries WHERE event = 'post.removed'") == 3)
            #expect(try await scalar("SELECT count(*) FROM deliveries WHERE event = 'post.created' AND status = 'delivered'") == 3)
            // The turn planning the same removals again adds none.
            _ = try await store.withDispatchTurn(deadline: .seconds(30)) { turn in try await turn.queueRemovals(of: posts) }
            #expect(try await scalar("SELECT count(*) FROM deliveries WHERE event = 'post.removed'") == 3)
        }
    }
}
