/// What is delivered: a webhook's two events, or a push.
public enum DeliveryEvent: String, Sendable, Equatable {
    case created = "post.created"
    case removed = "post.removed"
    case push = "push"
}

/// Where a delivery stands.
public enum DeliveryStatus: String, Sendable, Equatable {
    /// Waiting for its first attempt or a retry.
    case pending
    /// Answered 2xx.
    case delivered
    /// Given up after 24 hours of failures.
    case failed
    /// Not sent: the post was hidden, deleted or expired first, or the target was removed.
    case skipped
    /// The push service said the subscription is gone (404/410).
    case gone
}

/// Who receives a delivery.
public enum DeliveryTarget: Sendable, Hashable {
    case webhook(Int64)
    case subscription(Int64)
}

/// One row of a webhook's delivery history.
public struct DeliveryRecord: Sendable, Equatable {
    public var sequence: Int64
    public var deliveryId: String
    public var event: DeliveryEvent
    public var postId: Int64
    public var attempts: Int
    public var status: DeliveryStatus
    public var lastError: String?
    public var createdAt: Int64
    public var lastAttemptAt: Int64?
    public var nextAttemptAt: Int64?

    public init(
        sequence: Int64, deliveryId: String, event: DeliveryEvent, postId: Int64, attempts: Int, status: DeliveryStatus,
        lastError: String?, createdAt: Int64, lastAttemptAt: Int64?, nextAttemptAt: Int64?
    ) {
        self.sequence = sequence
        self.deliveryId = deliveryId
        self.event = event
        self.postId = postId
        self.attempts = attempts
        self.status = status
        self.lastError = lastError
        self.createdAt = createdAt
        self.lastAttemptAt = lastAttemptAt
        self.nextAttemptAt = nextAttemptAt
    }
}

/// A delivery claimed for sending: its body was fixed when it was queued.
public struct ClaimedDelivery: Sendable, Equatable {
    public var sequence: Int64
    public var deliveryId: String
    public var event: DeliveryEvent
    public var postId: Int64
    public var target: DeliveryTarget
    public var body: [UInt8]
    /// Attempts including this one.
    public var attempts: Int
    public var createdAt: Int64
    /// Where and how to send it: the webhook's URL and secret, or the subscription's endpoint and keys.
    public var url: String
    public var secret: String?
    public var p256dh: [UInt8]?
    public var auth: [UInt8]?
    /// Whether the post is still on the board (visible and not expired); a created or push
    /// delivery of a post that left before it was sent is skipped.
    public var postIsLive: Bool

    public init(
        sequence: Int64, deliveryId: String, event: DeliveryEvent, postId: Int64, target: DeliveryTarget, body: [UInt8], attempts: Int,
        createdAt: Int64, url: String, secret: String?, p256dh: [UInt8]?, auth: [UInt8]?, postIsLive: Bool
    ) {
        self.sequence = sequence
        self.deliveryId = deliveryId
        self.event = event
        self.postId = postId
        self.target = target
        self.body = body
        self.attempts = attempts
        self.createdAt = createdAt
        self.url = url
        self.secret = secret
        self.p256dh = p256dh
        self.auth = auth
        self.postIsLive = postIsLive
    }
}

/// How an attempt ended.
public enum DeliveryOutcome: Sendable, Equatable {
    case delivered
    /// Retry at the given time (milliseconds), or give up when that is past the 24 hours.
    case retry(error: String, at: Int64)
    case failed(error: String)
    case skipped(reason: String)
    case gone(error: String)
    /// Not attempted (its host has as many calls in flight as it may): try again at this time,
    /// the attempt not counted.
    case deferred(at: Int64)
}

/// When to try again: doubling from 5 s up to an hour, with up to 20 % jitter so that a target
/// coming back is not hit by every retry at once; a `Retry-After` asked for is honoured.
public enum RetrySchedule {
    public static let giveUpAfterMilliseconds: Int64 = 24 * 3_600_000

    public static func delayMilliseconds(afterAttempt attempts: Int, retryAfterSeconds: Int? = nil, jitter: Double = Double.random(in: 0..<0.2)) -> Int64 {
        if let retryAfterSeconds { return Int64(min(max(retryAfterSeconds, 1), 3600)) * 1000 }
        let base = min(5_000.0 * pow2(max(attempts - 1, 0)), 3_600_000.0)
        return Int64(base * (1 + jitter))
    }

    private static func pow2(_ exponent: Int) -> Double {
        exponent >= 30 ? Double(1 << 30) : Double(1 << exponent)
    }

    /// The outcome of a failed attempt: a retry, or failure when the next try would fall past a
    /// day after the delivery was queued.
    public static func afterFailure(_ error: String, attempts: Int, createdAt: Int64, now: Int64, retryAfterSeconds: Int? = nil) -> DeliveryOutcome {
        let next = now + delayMilliseconds(afterAttempt: attempts, retryAfterSeconds: retryAfterSeconds)
        return next - createdAt > giveUpAfterMilliseconds ? .failed(error: error) : .retry(error: error, at: next)
    }
}
