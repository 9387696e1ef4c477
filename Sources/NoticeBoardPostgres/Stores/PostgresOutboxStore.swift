import Foundation
import Logging
import NoticeBoardCore
import PostgresNIO

/// Webhooks, push subscriptions and the deliveries outbox on PostgreSQL (migrations 0011, 0012).
public struct PostgresOutboxStore: OutboxStore {
    let client: DatabasePool
    let logger: Logger

    public init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    static func milliseconds(_ column: String) -> String { "(extract(epoch FROM \(column)) * 1000)::int8" }

    // MARK: Webhooks

    public func createWebhook(_ draft: WebhookDraft, by moderator: String) async throws -> Webhook {
        try await StoreErrors.bounded { [self] in
            let rows = try await client.query(
                """
                INSERT INTO webhooks (url, secret, area, tags, created_by)
                VALUES (\(draft.url.text), \(draft.secret), \(draft.area.json.canonicalText)::jsonb, \(draft.tags)::text[], \(moderator))
                RETURNING id, \(unescaped: Self.milliseconds("created_at"))
                """, logger: logger)
            for try await (id, createdAt) in rows.decode((Int64, Int64).self) {
                return Webhook(id: id, url: draft.url.text, secret: draft.secret, area: draft.area, tags: draft.tags, createdAt: createdAt, createdBy: moderator)
            }
            throw StoreError.unavailable("the webhook was not stored")
        }
    }

    public func webhooks() async throws -> [Webhook] {
        try await StoreErrors.bounded { [self] in
            let rows = try await client.query(
                "SELECT id, url, secret, area::text, tags, \(unescaped: Self.milliseconds("created_at")), created_by FROM webhooks ORDER BY id",
                logger: logger)
            var hooks: [Webhook] = []
            for try await (id, url, secret, area, tags, createdAt, createdBy) in rows.decode((Int64, String, String, String, [String], Int64, String).self) {
                guard let area = Self.area(area) else { continue }
                hooks.append(Webhook(id: id, url: url, secret: secret, area: area, tags: tags, createdAt: createdAt, createdBy: createdBy))
            }
            return hooks
        }
    }

    public func deleteWebhook(id: Int64) async throws -> Bool {
        try await StoreErrors.bounded { [self] in
            for try await _ in try await client.query("DELETE FROM webhooks WHERE id = \(id) RETURNING id", logger: logger) { return true }
            return false
        }
    }

    public func deliveries(webhookId: Int64, limit: Int, before: Int64?) async throws -> [DeliveryRecord]? {
        try await StoreErrors.bounded { [self] in
            var exists = false
            for try await _ in try await client.query("SELECT 1 FROM webhooks WHERE id = \(webhookId)", logger: logger) { exists = true }
            guard exists else { return nil }
            let rows = try await client.query(
                """
                SELECT id, delivery_id::text, event, post_id, attempts, status, last_error, \(unescaped: Self.milliseconds("created_at")),
                    \(unescaped: Self.milliseconds("last_attempt_at")),
                    CASE WHEN status = 'pending' THEN \(unescaped: Self.milliseconds("next_attempt_at")) END
                FROM deliveries WHERE webhook_id = \(webhookId) AND id < \(before ?? Int64.max)
                ORDER BY id DESC LIMIT \(limit)
                """, logger: logger)
            var records: [DeliveryRecord] = []
            for try await (sequence, deliveryId, event, postId, attempts, status, lastError, createdAt, lastAttemptAt, nextAttemptAt) in rows.decode(
                (Int64, String, String, Int64, Int32, String, String?, Int64, Int64?, Int64?).self)
            {
                records.append(
                    DeliveryRecord(
                        sequence: sequence, deliveryId: deliveryId, event: DeliveryEvent(rawValue: event) ?? .created, postId: postId,
                        attempts: Int(attempts), status: DeliveryStatus(rawValue: status) ?? .pending, lastError: lastError, createdAt: createdAt,
                        lastAttemptAt: lastAttemptAt, nextAttemptAt: nextAttemptAt))
            }
            return records
        }
    }

    // MARK: Push subscriptions

    public func createSubscription(_ draft: PushSubscriptionDraft, deviceHash: String) async throws -> PushSubscription {
        try await StoreErrors.bounded { [self] in
            let rows = try await client.query(
                """
                INSERT INTO push_subscriptions (device_hash, endpoint, p256dh, auth, area, tags)
                VALUES (\(deviceHash), \(draft.endpoint.text), \(Data(draft.p256dh)), \(Data(draft.auth)), \(draft.area.json.canonicalText)::jsonb, \(draft.tags)::text[])
                RETURNING id, \(unescaped: Self.milliseconds("created_at"))
                """, logger: logger)
            for try await (id, createdAt) in rows.decode((Int64, Int64).self) {
                return PushSubscription(
                    id: id, endpoint: draft.endpoint.text, p256dh: draft.p256dh, auth: draft.auth, area: draft.area, tags: draft.tags, createdAt: createdAt)
            }
            throw StoreError.unavailable("the subscription was not stored")
        }
    }

    public func subscriptions() async throws -> [PushSubscription] {
        try await StoreErrors.bounded { [self] in
            let rows = try await client.query(
                "SELECT id, endpoint, p256dh, auth, area::text, tags, \(unescaped: Self.milliseconds("created_at")) FROM push_subscriptions ORDER BY id",
                logger: logger)
            var subscriptions: [PushSubscription] = []
            for try await (id, endpoint, p256dh, auth, area, tags, createdAt) in rows.decode((Int64, String, Data, Data, String, [String], Int64).self) {
                guard let area = Self.area(area) else { continue }
                subscriptions.append(
                    PushSubscription(id: id, endpoint: endpoint, p256dh: [UInt8](p256dh), auth: [UInt8](auth), area: area, tags: tags, createdAt: createdAt))
            }
            return subscriptions
        }
    }

    public func deleteSubscription(id: Int64, deviceHash: String) async throws -> SubscriptionDeletion {
        try await StoreErrors.bounded { [self] in
            let rows = try await client.query(
                """
                WITH found AS (SELECT id, device_hash = \(deviceHash) AS yours FROM push_subscriptions WHERE id = \(id)),
                gone AS (DELETE FROM push_subscriptions p USING found WHERE p.id = found.id AND found.yours RETURNING p.id)
                SELECT yours FROM found
                """, logger: logger)
            for try await yours in rows.decode(Bool.self) { return yours ? .deleted : .notYours }
            return .notFound
        }
    }

    public func serverKey(named name: String, make: @Sendable () -> [UInt8]) async throws -> [UInt8] {
        let fresh = Data(make())
        return try await StoreErrors.bounded { [self] in
            _ = try await client.query("INSERT INTO server_keys (name, value) VALUES (\(name), \(fresh)) ON CONFLICT DO NOTHING", logger: logger)
            for try await value in try await client.query("SELECT value FROM server_keys WHERE name = \(name)", logger: logger).decode(Data.self) {
                return [UInt8](value)
            }
            throw StoreError.unavailable("the server key \(name) was not stored")
        }
    }

    // MARK: Dispatching and sending

    public func dispatchTurn(
        limit: Int, plan: @escaping @Sendable (Int64, [PostChange], [Webhook], [PushSubscription]) async throws -> DispatchPlan
    ) async throws -> DispatchResult? {
        try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection -> DispatchResult? in
                var watermark: Int64?
                for try await value in try await connection.query(
                    "SELECT watermark FROM dispatch_cursor WHERE id = 1 FOR UPDATE SKIP LOCKED", logger: logger
                ).decode(Int64.self) {
                    watermark = value
                }
                guard let watermark else { return nil }
                let expiryRemovals = try await queueExpiryRemovals(on: connection)
                // With nothing to deliver to, the changes are passed over in one statement (a
                // million imported posts would otherwise be read a thousand at a time). A target
                // made later never receives posts made before it, so nothing is lost.
                var targets = 0
                for try await count in try await connection.query(
                    "SELECT (SELECT count(*) FROM webhooks) + (SELECT count(*) FROM push_subscriptions)", logger: logger
                ).decode(Int64.self) {
                    targets = Int(count)
                }
                if targets == 0 {
                    var latest = watermark
                    for try await value in try await connection.query(
                        "UPDATE dispatch_cursor SET watermark = greatest(watermark, (SELECT coalesce(max(seq), 0) FROM post_changes)) WHERE id = 1 RETURNING watermark",
                        logger: logger
                    ).decode(Int64.self) {
                        latest = value
                    }
                    return DispatchResult(changesRead: 0, queued: expiryRemovals, watermark: latest)
                }
                let changes = try await connection.executeAll(ChangesAfter(sequence: watermark, limit: limit), logger: logger)
                guard !changes.isEmpty else { return DispatchResult(changesRead: 0, queued: expiryRemovals, watermark: watermark) }
                let planned = try await plan(watermark, changes, try await webhooks(), try await subscriptions())
                var queued = expiryRemovals
                if !planned.deliveries.isEmpty {
                    // 0 stands for none: arrays of optionals do not bind.
                    let webhookIds = planned.deliveries.map { delivery -> Int64 in if case .webhook(let id) = delivery.target { id } else { 0 } }
                    let subscriptionIds = planned.deliveries.map { delivery -> Int64 in if case .subscription(let id) = delivery.target { id } else { 0 } }
                    let rows = try await connection.query(
                        """
                        INSERT INTO deliveries (delivery_id, webhook_id, subscription_id, event, post_id, body)
                        SELECT d.delivery_id::uuid, nullif(d.webhook_id, 0), nullif(d.subscription_id, 0), d.event, d.post_id, decode(d.body, 'base64')
                        FROM unnest(\(planned.deliveries.map(\.deliveryId))::text[], \(webhookIds)::int8[], \(subscriptionIds)::int8[],
                            \(planned.deliveries.map(\.event.rawValue))::text[], \(planned.deliveries.map(\.postId))::int8[],
                            \(planned.deliveries.map { Data($0.body).base64EncodedString() })::text[])
                            AS d (delivery_id, webhook_id, subscription_id, event, post_id, body)
                        WHERE (d.webhook_id = 0 OR EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id))
                          AND (d.subscription_id = 0 OR EXISTS (SELECT 1 FROM push_subscriptions s WHERE s.id = d.subscription_id))
                        ON CONFLICT DO NOTHING RETURNING id
                        """, logger: logger)
                    for try await _ in rows { queued += 1 }
                }
                if !planned.removedPosts.isEmpty {
                    queued += try await queueRemovals(of: planned.removedPosts, on: connection)
                }
                _ = try await connection.query("UPDATE dispatch_cursor SET watermark = \(planned.watermark) WHERE id = 1", logger: logger)
                return DispatchResult(changesRead: changes.count, queued: queued, watermark: planned.watermark)
            }
        }
    }

    /// Expiry changes no row, so no change reports it: the posts whose time ran out since the
    /// last turn (at most `expiryBatch` a turn, in expiry order) are removals too.
    private func queueExpiryRemovals(on connection: PostgresConnection) async throws -> Int {
        var expired: [Int64] = []
        for try await id in try await connection.query(
            """
            WITH looked AS (SELECT expired_through, expired_through_id FROM dispatch_cursor WHERE id = 1),
            due AS (
                SELECT p.id, p.expires_at FROM posts p, looked
                WHERE p.expires_at IS NOT NULL AND p.expires_at <= now()
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
        return expired.isEmpty ? 0 : try await queueRemovals(of: expired, on: connection)
    }

    static let expiryBatch = 1000

    /// Pending created and push deliveries of removed posts are skipped; a webhook that was sent
    /// (or tried and given up on) `post.created` gets `post.removed`, once.
    private func queueRemovals(of posts: [Int64], on connection: PostgresConnection) async throws -> Int {
        _ = try await connection.query(
            """
            UPDATE deliveries SET status = 'skipped', last_error = 'the post left the board before it was sent', lease_until = NULL
            WHERE post_id = ANY(\(posts)::int8[]) AND status = 'pending' AND event IN ('post.created', 'push')
            """, logger: logger)
        var queued = 0
        for try await _ in try await connection.query(
            """
            INSERT INTO deliveries (delivery_id, webhook_id, event, post_id, body)
            SELECT u.id, d.webhook_id, 'post.removed', d.post_id,
                convert_to('{"event":"post.removed","deliveryId":"' || u.id::text || '","post":{"id":' || d.post_id || '}}', 'UTF8')
            FROM deliveries d CROSS JOIN LATERAL (SELECT gen_random_uuid() AS id) u
            WHERE d.post_id = ANY(\(posts)::int8[]) AND d.event = 'post.created' AND d.status IN ('delivered', 'failed')
            ON CONFLICT DO NOTHING RETURNING id
            """, logger: logger)
        {
            queued += 1
        }
        return queued
    }

    public func claimDue(limit: Int, leaseMilliseconds: Int) async throws -> [ClaimedDelivery] {
        try await StoreErrors.bounded { [self] in
            let rows = try await client.query(
                """
                WITH due AS (
                    SELECT id FROM deliveries
                    WHERE status = 'pending' AND next_attempt_at <= clock_timestamp() AND (lease_until IS NULL OR lease_until < clock_timestamp())
                    ORDER BY next_attempt_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                UPDATE deliveries d SET lease_until = clock_timestamp() + \(leaseMilliseconds) * interval '1 millisecond',
                    attempts = d.attempts + 1, last_attempt_at = clock_timestamp()
                FROM due WHERE d.id = due.id
                RETURNING d.id, d.delivery_id::text, d.event, d.post_id, d.webhook_id, d.subscription_id, d.body, d.attempts,
                    \(unescaped: Self.milliseconds("d.created_at")),
                    coalesce((SELECT url FROM webhooks w WHERE w.id = d.webhook_id), (SELECT endpoint FROM push_subscriptions s WHERE s.id = d.subscription_id), ''),
                    (SELECT secret FROM webhooks w WHERE w.id = d.webhook_id),
                    (SELECT p256dh FROM push_subscriptions s WHERE s.id = d.subscription_id),
                    (SELECT auth FROM push_subscriptions s WHERE s.id = d.subscription_id),
                    coalesce((SELECT p.status = 'visible' AND (p.expires_at IS NULL OR p.expires_at > clock_timestamp()) FROM posts p WHERE p.id = d.post_id), false)
                """, logger: logger)
            var claimed: [ClaimedDelivery] = []
            for try await row in rows {
                let (sequence, deliveryId, event, postId, webhookId, subscriptionId, body, attempts, createdAt, url, secret, p256dh, auth, live) =
                    try row.decode((Int64, String, String, Int64, Int64?, Int64?, Data, Int32, Int64, String, String?, Data?, Data?, Bool).self)
                let target: DeliveryTarget = webhookId.map { .webhook($0) } ?? .subscription(subscriptionId ?? 0)
                claimed.append(
                    ClaimedDelivery(
                        sequence: sequence, deliveryId: deliveryId, event: DeliveryEvent(rawValue: event) ?? .created, postId: postId, target: target,
                        body: [UInt8](body), attempts: Int(attempts), createdAt: createdAt, url: url, secret: secret, p256dh: p256dh.map { [UInt8]($0) },
                        auth: auth.map { [UInt8]($0) }, postIsLive: live))
            }
            return claimed
        }
    }

    public func record(_ outcome: DeliveryOutcome, sequence: Int64, target: DeliveryTarget) async throws {
        try await StoreErrors.bounded { [self] in
            let query: PostgresQuery
            switch outcome {
            case .delivered:
                query = "UPDATE deliveries SET status = 'delivered', last_error = NULL, lease_until = NULL WHERE id = \(sequence)"
            case .retry(let error, let at):
                query = """
                    UPDATE deliveries SET last_error = \(error), lease_until = NULL,
                        next_attempt_at = to_timestamp(\(Double(at) / 1000)) WHERE id = \(sequence)
                    """
            case .failed(let error):
                query = "UPDATE deliveries SET status = 'failed', last_error = \(error), lease_until = NULL WHERE id = \(sequence)"
            case .skipped(let reason):
                query = "UPDATE deliveries SET status = 'skipped', last_error = \(reason), lease_until = NULL WHERE id = \(sequence)"
            case .gone(let error):
                guard case .subscription(let id) = target else {
                    query = "UPDATE deliveries SET status = 'failed', last_error = \(error), lease_until = NULL WHERE id = \(sequence)"
                    break
                }
                // The subscription ends, and its deliveries with it.
                query = "DELETE FROM push_subscriptions WHERE id = \(id)"
            }
            _ = try await client.query(query, logger: logger)
        }
    }

    public func pendingCount() async throws -> Int {
        try await StoreErrors.bounded { [self] in
            for try await count in try await client.query("SELECT count(*)::int8 FROM deliveries WHERE status = 'pending'", logger: logger).decode(Int64.self) {
                return Int(count)
            }
            return 0
        }
    }

    static func area(_ text: String) -> DeliveryArea? {
        guard let json = JSONValue.parse(Data(text.utf8)) else { return nil }
        return try? DeliveryArea(json: json, maxRadius: 50_000)
    }
}
