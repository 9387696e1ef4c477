import NoticeBoardCore

/// The outbox routes' one door, as the board is every other route's: webhooks and push
/// subscriptions checked (the host policy, the place, the limit) and stored.
extension OutboxServices {
    static let maxWebhooks = 1000

    /// The outbox when the server has a database for it; without one, `what` answers 503.
    static func required(_ outbox: OutboxServices?, _ what: String) throws -> OutboxServices {
        guard let outbox else { throw APIError.unavailable("\(what) the database") }
        return outbox
    }

    func createWebhook(_ draft: WebhookDraft, by moderator: String) async throws -> Webhook {
        if case .refused(let reason) = await policy.check(draft.url) { throw APIError.invalid("url \(reason)", field: "url") }
        try requireKnownPlace(draft.area)
        guard try await store.webhooks().count < Self.maxWebhooks else {
            throw APIError(.conflict, code: "limit_reached", message: "at most \(Self.maxWebhooks) webhooks; delete some first")
        }
        return try await store.createWebhook(draft, by: moderator)
    }

    func webhooks() async throws -> [Webhook] {
        try await store.webhooks()
    }

    func deleteWebhook(id: Int64) async throws {
        guard try await store.deleteWebhook(id: id) else { throw APIError.notFound("no such webhook") }
    }

    /// A webhook's deliveries, newest first, before the sequence `before`.
    func deliveries(webhookId: Int64, limit: Int, before: Int64?) async throws -> [DeliveryRecord] {
        guard let records = try await store.deliveries(webhookId: webhookId, limit: limit, before: before) else {
            throw APIError.notFound("no such webhook")
        }
        return records
    }

    /// Stores a device's subscription once its endpoint's host may be called.
    func subscribe(_ draft: PushSubscriptionDraft, deviceHash: String) async throws -> PushSubscription {
        if case .refused(let reason) = await policy.check(draft.endpoint) {
            throw APIError.invalid("the endpoint \(reason)", field: "subscription.endpoint")
        }
        try requireKnownPlace(draft.area)
        return try await store.createSubscription(draft, deviceHash: deviceHash)
    }

    /// Ends a subscription for the device that made it.
    func unsubscribe(id: Int64, deviceHash: String) async throws {
        switch try await store.deleteSubscription(id: id, deviceHash: deviceHash) {
        case .deleted: return
        case .notFound: throw APIError.notFound("no such subscription")
        case .notYours: throw APIError(.forbidden, code: "forbidden", message: "this subscription was made with another device key")
        }
    }

    private func requireKnownPlace(_ area: DeliveryArea?) throws {
        if case .place(let slug)? = area, board.places.places[slug] == nil {
            throw APIError.invalid("no place has the slug \(slug)", field: "area.place")
        }
    }
}
