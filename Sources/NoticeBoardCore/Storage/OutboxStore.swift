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
    func deleteSubscription(id: Int64, deviceHash: String) async throws -> SubscriptionDeletion

    /// A secret made once for the whole deployment (the VAPID key): `make`'s value the first
    /// time any instance asks, the stored one ever after.
    func serverKey(named name: String, make: @Sendable () -> [UInt8]) async throws -> [UInt8]

    /// Every webhook's and subscription's interest now, and the position in the log of target
    /// changes to follow from (a little behind, so an entry committing late is still read).
    func allInterests() async throws -> (interests: [DeliveryInterest], logPosition: Int64)

    /// Runs `body` as one dispatch turn, in one transaction holding the dispatch cursor, unless
    /// another instance is taking one (`nil`). The turn has its own deadline, not a request's.
    func withDispatchTurn<Result: Sendable>(
        deadline: Duration, _ body: @escaping @Sendable (any DispatchTurn) async throws -> Result
    ) async throws -> Result?

    /// Up to `limit` deliveries due now, leased to the caller for `leaseMilliseconds` (another
    /// instance takes them over after that), their attempts counted.
    func claimDue(limit: Int, leaseMilliseconds: Int) async throws -> [ClaimedDelivery]
    /// How an attempt ended. A `post.created` delivered for a post that has left the board
    /// meanwhile queues its `post.removed` too, whatever order the two happened in.
    func record(_ outcome: DeliveryOutcome, of delivery: ClaimedDelivery) async throws
    /// `record(.delivered, of:)` for each of these, in one transaction.
    func recordDelivered(_ deliveries: [ClaimedDelivery]) async throws
    /// Deliveries waiting to be sent (the queue's depth).
    func pendingCount() async throws -> Int
}

/// What one dispatch turn reads and writes, all in its transaction.
public protocol DispatchTurn: Sendable {
    /// Every change at or below this has been planned (the stored cursor).
    var watermark: Int64 { get }
    /// Entries of the target log after `sequence`: which target changed.
    func targetChanges(after sequence: Int64, limit: Int) async throws -> [(sequence: Int64, target: DeliveryTarget)]
    /// The interests of these targets as they are now; a removed target is left out.
    func interests(of targets: [DeliveryTarget]) async throws -> [DeliveryInterest]
    /// Post changes after `sequence`, each joined with its post's state now.
    func changes(after sequence: Int64, limit: Int) async throws -> [PostChange]
    /// Moves the cursor past every change there is (nothing listens, so nothing is owed).
    func skipEveryChange() async throws -> Int64
    /// Queues deliveries, each target, post, event and reply once; how many were new.
    func queue(_ deliveries: [QueuedDelivery]) async throws -> Int
    /// Ends pending deliveries of removed posts not being sent now, and queues `post.removed`
    /// to every webhook that was sent `post.created` (one being sent now is followed up when
    /// its outcome is recorded); how many were queued.
    func queueRemovals(of posts: [Int64]) async throws -> Int
    /// The posts whose lifetime ran out since the last turn are removals too.
    func queueExpiryRemovals() async throws -> Int
    func storeWatermark(_ watermark: Int64) async throws
    /// Forgets log entries older than a day (every instance loads in full when it starts).
    func pruneTargetLog() async throws
}

public enum SubscriptionDeletion: Sendable, Equatable {
    case deleted
    case notFound
    case notYours
}

public struct QueuedDelivery: Sendable, Equatable {
    public var target: DeliveryTarget
    public var event: DeliveryEvent
    public var postId: Int64
    public var deliveryId: String
    public var body: [UInt8]
    /// The reply a reply push tells of.
    public var replyId: Int64?

    public init(target: DeliveryTarget, event: DeliveryEvent, postId: Int64, deliveryId: String, body: [UInt8], replyId: Int64? = nil) {
        self.target = target
        self.event = event
        self.postId = postId
        self.deliveryId = deliveryId
        self.body = body
        self.replyId = replyId
    }
}

public struct DispatchResult: Sendable, Equatable {
    public var changesRead: Int
    public var queued: Int
    public var watermark: Int64
    /// Whether changes may be waiting past what this turn read (it stopped at its page limit).
    public var moreWaiting: Bool

    public init(changesRead: Int, queued: Int, watermark: Int64, moreWaiting: Bool = false) {
        self.changesRead = changesRead
        self.queued = queued
        self.watermark = watermark
        self.moreWaiting = moreWaiting
    }
}
