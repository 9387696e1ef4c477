/// Webhooks, push subscriptions and the outbox of their deliveries, kept with the posts so that
/// deliveries survive restarts and are shared by every instance.
public protocol OutboxStore: Sendable {
    func createWebhook(_ draft: WebhookDraft, by moderator: String) async throws -> Webhook
    func webhooks() async throws -> [Webhook]
    /// Removes a webhook and its history; `false` if there is none.
    func deleteWebhook(id: Int64) async throws -> Bool
    /// A webhook's deliveries, newest first, before the sequence `before`; `nil` if there is no such webhook.
    func deliveries(webhookId: Int64, limit: Int, before: Int64?) async throws -> [DeliveryRecord]?

    func createSubscription(_ draft: PushSubscriptionDraft, deviceHash: String) async throws -> PushSubscription
    func subscriptions() async throws -> [PushSubscription]
    func deleteSubscription(id: Int64, deviceHash: String) async throws -> SubscriptionDeletion

    /// A secret made once for the whole deployment (the VAPID key): `make`'s value the first
    /// time any instance asks, the stored one ever after.
    func serverKey(named name: String, make: @Sendable () -> [UInt8]) async throws -> [UInt8]

    /// One dispatch turn, unless another instance is taking one: the changes after the stored
    /// watermark go to `plan` with every webhook and subscription, read in the same transaction; the plan's deliveries are queued (each target, post and event once),
    /// whose removed posts end their pending deliveries and queue `post.removed` where a
    /// `post.created` was queued before, and whose watermark is stored. `nil` when another
    /// instance holds the turn.
    func dispatchTurn(
        limit: Int,
        plan: @escaping @Sendable (_ watermark: Int64, _ changes: [PostChange], _ webhooks: [Webhook], _ subscriptions: [PushSubscription]) async throws -> DispatchPlan)
        async throws -> DispatchResult?

    /// Up to `limit` deliveries due now, leased to the caller for `leaseMilliseconds` (another
    /// instance takes them over after that), their attempts counted.
    func claimDue(limit: Int, leaseMilliseconds: Int) async throws -> [ClaimedDelivery]
    func record(_ outcome: DeliveryOutcome, sequence: Int64, target: DeliveryTarget) async throws
    /// Deliveries waiting to be sent (the queue's depth).
    func pendingCount() async throws -> Int
}

public enum SubscriptionDeletion: Sendable, Equatable {
    case deleted
    case notFound
    case notYours
}

/// What a dispatch turn queues.
public struct DispatchPlan: Sendable {
    public var deliveries: [QueuedDelivery]
    public var removedPosts: [Int64]
    public var watermark: Int64

    public init(deliveries: [QueuedDelivery], removedPosts: [Int64], watermark: Int64) {
        self.deliveries = deliveries
        self.removedPosts = removedPosts
        self.watermark = watermark
    }
}

public struct QueuedDelivery: Sendable, Equatable {
    public var target: DeliveryTarget
    public var event: DeliveryEvent
    public var postId: Int64
    public var deliveryId: String
    public var body: [UInt8]

    public init(target: DeliveryTarget, event: DeliveryEvent, postId: Int64, deliveryId: String, body: [UInt8]) {
        self.target = target
        self.event = event
        self.postId = postId
        self.deliveryId = deliveryId
        self.body = body
    }
}

public struct DispatchResult: Sendable, Equatable {
    public var changesRead: Int
    public var queued: Int
    public var watermark: Int64

    public init(changesRead: Int, queued: Int, watermark: Int64) {
        self.changesRead = changesRead
        self.queued = queued
        self.watermark = watermark
    }
}
