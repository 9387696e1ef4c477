import Foundation
import Logging
import NoticeBoardCore
import PostgresNIO

/// One dispatch turn's reads and writes on the connection whose transaction holds the dispatch
/// cursor (migrations 0011, 0012, 0014).
struct PostgresDispatchTurn: DispatchTurn {
    let connection: PostgresConnection
    let logger: Logger
    let watermark: Int64

    static let expiryBatch = 1000
    /// A post is taken as a removal this long after it expired: a `post.created` whose outcome
    /// was being recorded at that instant (which judged the post still live) has committed by
    /// then, so the removal query sees it delivered. Recording takes well under a second.
    static let expiryMarginSeconds = 10

    /// A post still on the board: visible and not expired, judged at the statement's instant.
    static let liveCondition = "p.status = 'visible' AND (p.expires_at IS NULL OR p.expires_at > clock_timestamp())"

    /// Queues `post.removed` for the `post.created` deliveries selected as `d` (the caller adds
    /// the WHERE clause and the conflict rule). The lateral names `d` so that each row gets its
    /// own delivery id: uncorrelated, it is evaluated once, and every removal after the first of
    /// a statement collided with it and was dropped by the conflict rule.
    static let removalInsert = """
        INSERT INTO deliveries (delivery_id, webhook_id, event, post_id, body)
        SELECT u.id, d.webhook_id, 'post.removed', d.post_id,
            convert_to('{"event":"post.removed","deliveryId":"' || u.id::text || '","post":{"id":' || d.post_id || '}}', 'UTF8')
        FROM deliveries d CROSS JOIN LATERAL (SELECT gen_random_uuid() AS id, d.id AS of_delivery) u
        """

    func targetChanges(after sequence: Int64, limit: Int) async throws -> [(sequence: Int64, target: DeliveryTarget)] {
        var changes: [(sequence: Int64, target: DeliveryTarget)] = []
        for try await (seq, webhook, subscription) in try await connection.query(
            "SELECT seq, webhook_id, subscription_id FROM outbox_target_changes WHERE seq > \(sequence) ORDER BY seq LIMIT \(limit)", logger: logger
        ).decode((Int64, Int64?, Int64?).self) {
            changes.append((seq, webhook.map { .webhook($0) } ?? .subscription(subscription ?? 0)))
        }
        return changes
    }

    func interests(of targets: [DeliveryTarget]) async throws -> [DeliveryInterest] {
        var webhooks: [Int64] = [], subscriptions: [Int64] = []
        for target in targets {
            switch target {
            case .webhook(let id): webhooks.append(id)
            case .subscription(let id): subscriptions.append(id)
            }
        }
        return try await Self.interests(on: connection, webhookIds: webhooks, subscriptionIds: subscriptions, logger: logger)
    }

    /// The interests of these webhooks and subscriptions (every one for `nil`).
    static func interests(on connection: PostgresConnection, webhookIds: [Int64]?, subscriptionIds: [Int64]?, logger: Logger) async throws
        -> [DeliveryInterest]
    {
        var interests: [DeliveryInterest] = []
        if webhookIds.map({ !$0.isEmpty }) ?? true {
            for try await (id, area, tags, createdAt) in try await connection.query(
                """
                SELECT id, area::text, tags, \(unescaped: PostgresOutboxStore.milliseconds("created_at")) FROM webhooks
                WHERE \(webhookIds == nil) OR id = ANY(\(webhookIds ?? [])::int8[])
                """, logger: logger
            ).decode((Int64, String, [String], Int64).self) {
                guard let area = PostgresOutboxStore.area(area) else { continue }
                interests.append(DeliveryInterest(target: .webhook(id), listening: .area(area, tags: tags), createdAt: createdAt))
            }
        }
        if subscriptionIds.map({ !$0.isEmpty }) ?? true {
            for try await (id, area, tags, createdAt, replies, device) in try await connection.query(
                """
                SELECT id, area::text, tags, \(unescaped: PostgresOutboxStore.milliseconds("created_at")), replies, device_hash FROM push_subscriptions
                WHERE \(subscriptionIds == nil) OR id = ANY(\(subscriptionIds ?? [])::int8[])
                """, logger: logger
            ).decode((Int64, String?, [String], Int64, Bool, String).self) {
                let listening: DeliveryInterest.Listening
                if replies {
                    listening = .replies(toDevice: device)
                } else {
                    guard let area = PostgresOutboxStore.area(area) else { continue }
                    listening = .area(area, tags: tags)
                }
                interests.append(DeliveryInterest(target: .subscription(id), listening: listening, createdAt: createdAt))
            }
        }
        return interests
    }

    func changes(after sequence: Int64, limit: Int) async throws -> [PostChange] {
        // Every change in full: the outbox delivers this process's own changes too.
        try await connection.executeAll(ChangesAfter(sequence: sequence, limit: limit), logger: logger).compactMap { entry in
            if case .change(let change) = entry { change } else { nil }
        }
    }

    func skipEveryChange() async throws -> Int64 {
        var latest = watermark
        for try await value in try await connection.query(
            "UPDATE dispatch_cursor SET watermark = greatest(watermark, (SELECT coalesce(max(seq), 0) FROM post_changes)) WHERE id = 1 RETURNING watermark",
            logger: logger
        ).decode(Int64.self) {
            latest = value
        }
        return latest
    }

    func queue(_ deliveries: [QueuedDelivery]) async throws -> Int {
        guard !deliveries.isEmpty else { return 0 }
        // 0 stands for none: arrays of optionals do not bind.
        let webhookIds = deliveries.map { delivery -> Int64 in if case .webhook(let id) = delivery.target { id } else { 0 } }
        let subscriptionIds = deliveries.map { delivery -> Int64 in if case .subscription(let id) = delivery.target { id } else { 0 } }
        var queued = 0
        for try await _ in try await connection.query(
            """
            INSERT INTO deliveries (delivery_id, webhook_id, subscription_id, event, post_id, reply_id, body)
            SELECT d.delivery_id::uuid, nullif(d.webhook_id, 0), nullif(d.subscription_id, 0), d.event, d.post_id, nullif(d.reply_id, 0),
                decode(d.body, 'base64')
            FROM unnest(\(deliveries.map(\.deliveryId))::text[], \(webhookIds)::int8[], \(subscriptionIds)::int8[],
                \(deliveries.map(\.event.rawValue))::text[], \(deliveries.map(\.postId))::int8[], \(deliveries.map { $0.replyId ?? 0 })::int8[],
                \(deliveries.map { Data($0.body).base64EncodedString() })::text[])
                AS d (delivery_id, webhook_id, subscription_id, event, post_id, reply_id, body)
            WHERE (d.webhook_id = 0 OR EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id))
              AND (d.subscription_id = 0 OR EXISTS (SELECT 1 FROM push_subscriptions s WHERE s.id = d.subscription_id))
            ON CONFLICT DO NOTHING RETURNING id
            """, logger: logger)
        {
            queued += 1
        }
        return queued
    }

    func queueRemovals(of posts: [Int64]) async throws -> Int {
        guard !posts.isEmpty else { return 0 }
        // Only what is not on its way: a delivery being sent now is recorded when it ends, and
        // a `post.created` that arrives then is followed by its removal (`record`).
        _ = try await connection.query(
            """
            UPDATE deliveries SET status = 'skipped', last_error = 'the post left the board before it was sent', lease_until = NULL
            WHERE post_id = ANY(\(posts)::int8[]) AND status = 'pending' AND event IN ('post.created', 'push')
              AND (lease_until IS NULL OR lease_until < clock_timestamp())
            """, logger: logger)
        var queued = 0
        for try await _ in try await connection.query(
            """
            \(unescaped: Self.removalInsert)
            WHERE d.post_id = ANY(\(posts)::int8[]) AND d.event = 'post.created'
              AND d.status IN ('delivered', 'failed')
            ON CONFLICT DO NOTHING RETURNING id
            """, logger: logger)
        {
            queued += 1
        }
        return queued
    }

    func queueExpiryRemovals() async throws -> Int {
        var expired: [Int64] = []
        for try await id in try await connection.query(
            """
            WITH looked AS (SELECT expired_through, expired_through_id FROM dispatch_cursor WHERE id = 1),
            due AS (
                SELECT p.id, p.expires_at FROM posts p, looked
                WHERE p.expires_at IS NOT NULL AND p.expires_at <= now() - \(Self.expiryMarginSeconds) * interval '1 second'
                  AND (p.expires_at, p.id) > (looked.expired_through, looked.expired_through_id)
                ORDER BY p.expires_at, p.id LIMIT \(Self.expiryBatch)),
            moved AS (
                UPDATE dispatch_cursor SET (expired_through, expired_through_id) =
                    (SELECT expires_at, id FROM due ORDER BY expires_at DESC, id DESC LIMIT 1)
                WHERE id = 1 AND EXISTS (SELECT 1 FROM due))
            SELECT id FROM due
            """, logger: logger
        ).decode(Int64.self) {
            expired.append(id)
        }
        return try await queueRemovals(of: expired)
    }

    func storeWatermark(_ watermark: Int64) async throws {
        _ = try await connection.query("UPDATE dispatch_cursor SET watermark = \(watermark) WHERE id = 1", logger: logger)
    }

    func pruneTargetLog() async throws {
        _ = try await connection.query("DELETE FROM outbox_target_changes WHERE at < clock_timestamp() - interval '1 day'", logger: logger)
    }
}
