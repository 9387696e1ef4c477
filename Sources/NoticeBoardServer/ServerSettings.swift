import Crypto

/// What the HTTP layer needs to know beyond the board itself.
public struct ServerSettings: Sendable {
    public var host: String
    public var port: Int
    /// Posts a client may create per minute; 0 means unlimited.
    public var postRatePerMinute: Int
    public var postBurst: Int
    public var reportThreshold: Int
    /// Peers whose `X-Forwarded-For` is believed.
    public var trustedProxies: [String]
    /// The key of the `clientId` pseudonyms.
    public var clientHashKey: SymmetricKey

    public init(
        host: String = "127.0.0.1", port: Int = 8080, postRatePerMinute: Int = 30, postBurst: Int = 10,
        reportThreshold: Int = 5, trustedProxies: [String] = [], clientHashKey: SymmetricKey = SymmetricKey(size: .bits256)
    ) {
        self.host = host
        self.port = port
        self.postRatePerMinute = postRatePerMinute
        self.postBurst = postBurst
        self.reportThreshold = reportThreshold
        self.trustedProxies = trustedProxies
        self.clientHashKey = clientHashKey
    }
}
