/// A device's request to be pushed new notes in an area, or replies to its own notes (Web Push,
/// RFC 8030/8291).
public struct PushSubscription: Sendable, Equatable {
    public var id: Int64
    public var endpoint: String
    /// The browser's P-256 public key (65 bytes, uncompressed) and its 16-byte authentication secret.
    public var p256dh: [UInt8]
    public var auth: [UInt8]
    public var listening: DeliveryInterest.Listening
    public var createdAt: Int64

    public init(id: Int64, endpoint: String, p256dh: [UInt8], auth: [UInt8], listening: DeliveryInterest.Listening, createdAt: Int64) {
        self.id = id
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
        self.listening = listening
        self.createdAt = createdAt
    }

    public var interest: DeliveryInterest {
        DeliveryInterest(target: .subscription(id), listening: listening, createdAt: createdAt)
    }
}

/// `POST /api/v1/push/subscriptions`' body, validated (the key's curve point is checked where
/// the cryptography lives).
public struct PushSubscriptionDraft: Sendable, Equatable {
    public var endpoint: DeliveryURL
    public var p256dh: [UInt8]
    public var auth: [UInt8]
    /// `nil` for a subscription to replies (`"replies": true`).
    public var area: DeliveryArea?
    public var tags: [String]

    public init(json: JSONValue) throws(ValidationError) {
        guard case .object(let members) = json else { throw ValidationError(field: nil, "the body must be a JSON object") }
        guard case .object(let subscription)? = members["subscription"] else {
            throw ValidationError(field: "subscription", "is required: {endpoint, keys: {p256dh, auth}}")
        }
        let fields = JSONFields(subscription)
        guard let endpoint = try? fields.requiredString("endpoint") else {
            throw ValidationError(field: "subscription.endpoint", "is required and must be a string")
        }
        self.endpoint = try DeliveryURL(endpoint, field: "subscription.endpoint")
        guard case .object(let keys)? = subscription["keys"] else {
            throw ValidationError(field: "subscription.keys", "is required: {p256dh, auth}")
        }
        guard case .string(let p256dh)? = keys["p256dh"], let point = Base64URL.decode(Self.unpadded(p256dh)), point.count == 65, point[0] == 4 else {
            throw ValidationError(field: "subscription.keys.p256dh", "must be an uncompressed P-256 point in URL-safe base64 (65 bytes)")
        }
        guard case .string(let auth)? = keys["auth"], let secret = Base64URL.decode(Self.unpadded(auth)), secret.count == 16 else {
            throw ValidationError(field: "subscription.keys.auth", "must be 16 bytes in URL-safe base64")
        }
        self.p256dh = point
        self.auth = secret
        let replies: Bool
        switch members["replies"] {
        case nil, .null?: replies = false
        case .bool(let value)?: replies = value
        default: throw ValidationError(field: "replies", "must be true or false")
        }
        if replies {
            guard members["area"] == nil || members["area"] == .null else {
                throw ValidationError(field: "area", "a subscription has an area or \"replies\": true, not both")
            }
            area = nil
        } else {
            let area = try DeliveryArea(json: members["area"], maxRadius: 5000)
            if case .box = area { throw ValidationError(field: "area", "must be {lat, lon, radius} (radius at most 5000) or {place}") }
            self.area = area
        }
        tags = try DeliveryTags.parse(members["tags"])
    }

    /// Browsers send these keys unpadded; some libraries pad them.
    private static func unpadded(_ text: String) -> String {
        String(text.reversed().drop { $0 == "=" }.reversed())
    }
}
