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
        let area = draft.area.map { $0.json.canonicalText }
        return try await StoreErrors.bounded { [self] in
            let rows = try await client.query(
                """
                INSERT INTO push_subscriptions (device_hash, endpoint, p256dh, auth, area, tags, replies)
                VALUES (\(deviceHash), \(draft.endpoint.text), \(Data(draft.p256dh)), \(Data(draft.auth)), \(area)::jsonb, \(draft.tags)::text[],
                    \(area == nil))
                RETURNING id, \(unescaped: Self.milliseconds("created_at"))
                """, logger: logger)
            for try await (id, createdAt) in rows.decode((Int64, Int64).self) {
                let listening: DeliveryInterest.Listening = draft.area.map { .area($0, tags: draft.tags) } ?? .replies(toDevice: deviceHash)
                return PushSubscription(id: id, endpoint: draft.endpoint.text, p256dh: draft.p256dh, auth: draft.auth, listening: listening, createdAt: createdAt)
            }
            throw StoreError.unavailable("the subscription was not stored")
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

    public func allInterests() async throws -> (interests: [DeliveryInterest], logPosition: Int64) {
        try await StoreErrors.bounded(deadline: .seconds(120)) { [self] in
            try await client.withTransaction(logger: logger) { connection in
                // Entries of the last minute are read again after the load: one whose
                // transaction commits after this snapshot is then still seen.
                var position: Int64 = 0
                for try await value in try await connection.query(
                    "SELECT coalesce(max(seq), 0) FROM outbox_target_changes WHERE at < clock_timestamp() - interval '1 minute'", logger: logger
                ).decode(Int64.self) {
                    position = value
                }
                var interests = try await PostgresDispatchTurn.interests(on: connection, webhookIds: nil, subscriptionIds: nil, logger: logger)
                interests.sort { $0.createdAt < $1.createdAt }
                return (interests, position)
            }
        }
    }

    public func withDispatchTurn<Result: Sendable>(
        deadline: Duration, _ body: @escaping @Sendable (any DispatchTurn) async throws -> Result
    ) async throws -> Result? {
        try await StoreErrors.bounded(deadline: deadline) { [self] in
            try await client.withTransaction(logger: logger) { connection -> Result? in
                var watermark: Int64?
                for try await value in try await connection.query(
                    "SELECT watermark FROM dispatch_cursor WHERE id = 1 FOR UPDATE SKIP LOCKED", logger: logger
                ).decode(Int64.self) {
                    watermark = value
                }
                guard let watermark else { return nil }
                return try await body(PostgresDispatchTurn(connection: connection, logger: logger, watermark: watermark))
            }
        }
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
                    coalesce((SELECT \(unescaped: PostgresDispatchTurn.liveCondition) FROM posts p WHERE p.id = d.post_id), false)
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

    public func record(_ outcome: DeliveryOutcome, of delivery: ClaimedDelivery) async throws {
        let sequence = delivery.sequence
        try await StoreErrors.bounded { [self] in
            let query: PostgresQuery
            switch outcome {
            case .delivered:
                guard delivery.event == .created else {
                    query = "UPDATE deliveries SET status = 'delivered', last_error = NULL, lease_until = NULL WHERE id = \(sequence)"
                    break
                }
                // The post's row lock orders this with a hide or delete: one that committed first
                // is seen here and its removal queued now; one that commits later is planned after
                // this commit and finds the delivery delivered. Queuing is once per webhook, post
                // and event. (Expiry changes no row: the dispatcher waits out `expiryMargin`.)
                try await client.withTransaction(logger: logger) { connection in
                    _ = try await connection.query("SELECT 1 FROM posts WHERE id = \(delivery.postId) FOR SHARE", logger: logger)
                    _ = try await connection.query(
                        "UPDATE deliveries SET status = 'delivered', last_error = NULL, lease_until = NULL WHERE id = \(sequence)", logger: logger)
                    _ = try await connection.query(
                        """
                        \(unescaped: PostgresDispatchTurn.removalInsert)
                        WHERE d.id = \(sequence)
                          AND NOT coalesce((SELECT \(unescaped: PostgresDispatchTurn.liveCondition) FROM posts p WHERE p.id = d.post_id), false)
                        ON CONFLICT DO NOTHING
                        """, logger: logger)
                }
                return
            case .retry(let error, let at):
                query = """
                    UPDATE deliveries SET last_error = \(error), lease_until = NULL,
                        next_attempt_at = to_timestamp(\(Double(at) / 1000)) WHERE id = \(sequence)
                    """
            case .deferred(let at):
                // Not tried: the attempt it was counted as is given back.
                query = """
                    UPDATE deliveries SET lease_until = NULL, attempts = greatest(attempts - 1, 0),
                        next_attempt_at = to_timestamp(\(Double(at) / 1000)) WHERE id = \(sequence)
                    """
            case .failed(let error):
                query = "UPDATE deliveries SET status = 'failed', last_error = \(error), lease_until = NULL WHERE id = \(sequence)"
            case .skipped(let reason):
                query = "UPDATE deliveries SET status = 'skipped', last_error = \(reason), lease_until = NULL WHERE id = \(sequence)"
            case .gone(let error):
                guard case .subscription(let id) = delivery.target else {
                    query = "UPDATE deliveries SET status = 'failed', last_error = \(error), lease_until = NULL WHERE id = \(sequence)"
                    break
                }
                // The subscription ends, and its deliveries with it.
                query = "DELETE FROM push_subscriptions WHERE id = \(id)"
            }
            _ = try await client.query(query, logger: logger)
        }
    }

    public func recordDelivered(_ deliveries: [ClaimedDelivery]) async throws {
        guard !deliveries.isEmpty else { return }
        let all = deliveries.map(\.sequence)
        let created = deliveries.filter { $0.event == .created }
        let createdIds = created.map(\.sequence)
        let posts = Set(created.map(\.postId)).sorted()
        try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection in
                // As `record` does for one, with the posts locked in id order so two batches
                // never wait on each other.
                if !posts.isEmpty {
                    _ = try await connection.query("SELECT 1 FROM posts WHERE id = ANY(\(posts)::int8[]) ORDER BY id FOR SHARE", logger: logger)
                }
                _ = try await connection.query(
                    "UPDATE deliveries SET status = 'delivered', last_error = NULL, lease_until = NULL WHERE id = ANY(\(all)::int8[])", logger: logger)
                guard !createdIds.isEmpty else { return }
                _ = try await connection.query(
                    """
                    \(unescaped: PostgresDispatchTurn.removalInsert)
                    WHERE d.id = ANY(\(createdIds)::int8[])
                      AND NOT coalesce((SELECT \(unescaped: PostgresDispatchTurn.liveCondition) FROM posts p WHERE p.id = d.post_id), false)
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
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

    static func area(_ text: String?) -> DeliveryArea? {
        guard let text else { return nil }
        guard let json = JSONValue.parse(Data(text.utf8)) else { return nil }
        return try? DeliveryArea(json: json, maxRadius: 50_000)
    }
}
