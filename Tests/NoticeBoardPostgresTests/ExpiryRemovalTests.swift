import DatabaseTestSupport
import Foundation
import NoticeBoardCore
import NoticeBoardPostgres
import PostgresNIO
import Testing

/// A post that expires is a removal for the webhooks it was sent to, though expiry changes no
/// row: each gets `post.removed` once, after its instant, however many turns pass; posts still
/// live, never sent, or never ending get none.
@Suite(.timeLimit(.minutes(2))) struct ExpiryRemovalTests {
    @Test func expiredPostsAreRemovedOnceForTheWebhooksTheyReached() async throws {
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            let store = PostgresOutboxStore(client: DatabasePool(client), logger: TestDatabase.logger)
            func scalar(_ sql: String) async throws -> Int64 {
                for try await value in try await client.query(PostgresQuery(unsafeSQL: sql)).decode(Int64.self) { return value }
                throw StoreError.unavailable("no row")
            }
            let webhook = try await scalar(
                "INSERT INTO webhooks (url, secret, area, tags, created_by) VALUES ('https://example.org/h', 'sixteen-characters', '{\"bbox\":[-180,-90,180,90]}', '{}', 'm') RETURNING id")
            func post(expiring expiry: String?, createdAgo: String = "1 minute") async throws -> Int64 {
                try await scalar(
                    """
                    INSERT INTO posts (lat, lon, message, tag, created_at, expires_at)
                    VALUES (1, 2, 'n', 'food', now() - interval '\(createdAgo)', \(expiry.map { "now() + interval '\($0)'" } ?? "NULL")) RETURNING id
                    """)
            }
            // Eight seconds leave room for a slow, busy machine before the first turn.
            let endsSoon = try await post(expiring: "8 seconds")
            let endsLater = try await post(expiring: "1 hour")
            let neverEnds = try await post(expiring: nil)
            let endedBefore = try await post(expiring: "-1 day", createdAgo: "2 days")
            let endedUnsent = try await post(expiring: "-1 hour", createdAgo: "2 days")
            for (id, status) in [(endsSoon, "delivered"), (endsLater, "delivered"), (neverEnds, "delivered"), (endedBefore, "failed"), (endedUnsent, "pending")] {
                _ = try await client.query(
                    PostgresQuery(unsafeSQL: """
                        INSERT INTO deliveries (delivery_id, webhook_id, event, post_id, body, status)
                        VALUES (gen_random_uuid(), \(webhook), 'post.created', \(id), '\\x7b7d', '\(status)')
                        """))
            }
            func turn() async throws {
                _ = try await store.withDispatchTurn(deadline: .seconds(30)) { turn in try await turn.queueExpiryRemovals() }
            }
            func removals() async throws -> [Int64: Int] {
                var counts: [Int64: Int] = [:]
                let rows = try await client.query(
                    "SELECT post_id, count(*)::int8 FROM deliveries WHERE event = 'post.removed' AND webhook_id = \(webhook) GROUP BY post_id")
                for try await (id, count) in rows.decode((Int64, Int64).self) { counts[id] = Int(count) }
                return counts
            }

            try await turn()
            #expect(try await removals() == [endedBefore: 1], "only the post that ended before and was sent")
            #expect(try await scalar("SELECT count(*) FROM deliveries WHERE post_id = \(endedUnsent) AND status = 'skipped'") == 1)
            let remaining = try await scalar("SELECT (extract(epoch FROM expires_at - now()) * 1000)::int8 FROM posts WHERE id = \(endsSoon)")
            // Removals of expired posts are queued once the dispatcher's margin has passed too.
            try await Task.sleep(for: .milliseconds(max(0, remaining) + 10_500))
            try await turn()
            try await turn()
            #expect(try await removals() == [endedBefore: 1, endsSoon: 1], "each ended post once, after its instant")
            let body = try await scalar(
                """
                SELECT count(*) FROM deliveries WHERE post_id = \(endsSoon) AND event = 'post.removed'
                  AND convert_from(body, 'UTF8') = '{"event":"post.removed","deliveryId":"' || delivery_id || '","post":{"id":\(endsSoon)}}'
                """)
            #expect(body == 1, "the removal carries its delivery id and the post's id")
        }
    }
}
