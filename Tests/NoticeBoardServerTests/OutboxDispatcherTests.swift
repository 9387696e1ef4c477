import DatabaseTestSupport
import Foundation
import Logging
import NoticeBoardCore
import NoticeBoardPostgres
import PostgresNIO
import Testing

@testable import NoticeBoardServer

/// The dispatcher on a real database: removals of delivered posts are queued, and a gap in the
/// change sequence (a transaction holding a number, uncommitted) is read past, not spun on.
@Suite(.timeLimit(.minutes(2))) struct OutboxDispatcherTests {
    static func scalar(_ client: PostgresClient, _ sql: String) async throws -> Int64 {
        for try await value in try await client.query(PostgresQuery(unsafeSQL: sql)).decode(Int64.self) { return value }
        throw StoreError.unavailable("no row")
    }

    /// A gap is waited for ten minutes here, so a slow machine never gives the test's gap up.
    static func dispatcher(_ client: PostgresClient) -> OutboxDispatcher {
        let pool = DatabasePool(client)
        return OutboxDispatcher(
            store: PostgresOutboxStore(client: pool, logger: TestDatabase.logger),
            board: Board(store: PostgresPostStore(client: pool, logger: TestDatabase.logger)), logger: TestDatabase.logger, gapTimeout: 600)
    }

    static let webhookSQL =
        "INSERT INTO webhooks (url, secret, area, tags, created_by) VALUES ('https://example.org/h', 'sixteen-characters', '{\"bbox\":[-180,-90,180,90]}', '{}', 'm') RETURNING id"

    @Test func aHiddenPostThatWasDeliveredIsRemovedOnce() async throws {
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            let dispatcher = Self.dispatcher(client)
            _ = try await dispatcher.turn()
            _ = try await Self.scalar(client, Self.webhookSQL)
            // Enough rows that the planner takes the plan a busy board gets (each removal its own id).
            _ = try await client.query("INSERT INTO posts (lat, lon, message, tag) SELECT 1, 2, 'n', 'food' FROM generate_series(1, 300)")
            _ = try await client.query("ANALYZE deliveries")
            _ = try await dispatcher.turn()
            #expect(try await Self.scalar(client, "SELECT count(*) FROM deliveries WHERE event = 'post.created'") == 300)
            _ = try await client.query("UPDATE deliveries SET status = 'delivered'")
            // A few hidden among many delivered, as moderators do: the removals are looked up by post.
            _ = try await client.query("UPDATE posts SET status = 'hidden' WHERE id % 30 = 0")
            _ = try await dispatcher.turn()
            #expect(try await Self.scalar(client, "SELECT count(*) FROM deliveries WHERE event = 'post.removed'") == 10)
            #expect(try await Self.scalar(client, "SELECT count(DISTINCT delivery_id) FROM deliveries WHERE event = 'post.removed'") == 10)
            _ = try await dispatcher.turn()
            #expect(try await Self.scalar(client, "SELECT count(*) FROM deliveries WHERE event = 'post.removed'") == 10, "once")
        }
    }

    @Test func aGapIsReadPastWithoutSpinning() async throws {
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            let dispatcher = Self.dispatcher(client)
            _ = try await dispatcher.turn()
            _ = try await Self.scalar(client, Self.webhookSQL)
            // A transaction takes the next change number and stays open: a gap below everything after.
            try await client.withConnection { held in
                _ = try await held.query("BEGIN", logger: TestDatabase.logger)
                _ = try await held.query("INSERT INTO posts (lat, lon, message, tag) VALUES (1, 2, 'gap', 'food')", logger: TestDatabase.logger)
                _ = try await client.query(
                    "INSERT INTO posts (lat, lon, message, tag) SELECT 1, 2, 'after ' || n, 'food' FROM generate_series(1, 2500) n")
                var turns = 0
                var result: DispatchResult?
                repeat {
                    result = try await dispatcher.turn()
                    turns += 1
                } while result?.moreWaiting == true && turns < 10
                #expect(turns == 1, "the turn read on past the gap and did not ask to be run again at once")
                #expect(try await Self.scalar(client, "SELECT count(*) FROM deliveries WHERE event = 'post.created'") == 2500)
                // Another turn while the gap is open plans nothing twice.
                _ = try await dispatcher.turn()
                #expect(try await Self.scalar(client, "SELECT count(*) FROM deliveries") == 2500)
                _ = try await held.query("COMMIT", logger: TestDatabase.logger)
            }
            _ = try await dispatcher.turn()
            #expect(try await Self.scalar(client, "SELECT count(*) FROM deliveries WHERE event = 'post.created'") == 2501, "the gap's post once it commits")
        }
    }
}
