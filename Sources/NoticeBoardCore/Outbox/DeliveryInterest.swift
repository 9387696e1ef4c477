/// What a webhook or push subscription listens to, as the dispatcher matches it: new notes in an
/// area (and tags), or replies to the notes of one device.
public struct DeliveryInterest: Sendable, Equatable {
    public enum Listening: Sendable, Equatable {
        case area(DeliveryArea, tags: [String])
        /// Replies by others to the notes made with this device (a push subscription's `replies: true`).
        case replies(toDevice: String)
    }

    public var target: DeliveryTarget
    public var listening: Listening
    /// Milliseconds since the Unix epoch: nothing made before this is delivered.
    public var createdAt: Int64

    public init(target: DeliveryTarget, listening: Listening, createdAt: Int64) {
        self.target = target
        self.listening = listening
        self.createdAt = createdAt
    }

    public init(_ webhook: Webhook) {
        self.init(target: .webhook(webhook.id), listening: .area(webhook.area, tags: webhook.tags), createdAt: webhook.createdAt)
    }
}
