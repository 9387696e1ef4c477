import Crypto
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import NIOSSL
import Prometheus

/// What the HTTP layer needs to know beyond the board itself.
public struct ServerSettings: Sendable {
    public var host: String
    public var port: Int
    /// Posts a client may create per minute; 0 means unlimited.
    public var postRatePerMinute: Int
    public var postBurst: Int
    public var reportThreshold: Int
    /// Likes and unlikes a client may make per minute; 0 means unlimited.
    public var likeRatePerMinute = 120
    /// Peers whose `X-Forwarded-For` is believed.
    public var trustedProxies: [String]
    /// The key of the `clientId` pseudonyms.
    public var clientHashKey: SymmetricKey
    /// The web page's files; `nil` serves the copy built into the binary's resources (`web/`).
    public var webDirectory: String?
    /// Where `/metrics` reads from; the serve command bootstraps swift-metrics onto it.
    public var metricsRegistry: PrometheusCollectorRegistry
    /// The map's tiles and where Leaflet comes from.
    public var page: PageSettings
    /// Origins allowed to call the API from other sites' pages (CORS); empty: none.
    public var corsOrigins: [String] = []
    /// How long a moderator's token lasts.
    public var tokenLifetimeSeconds = ModeratorAuth.defaultTokenLifetimeSeconds
    /// Seconds between keep-alive comments on live streams (the contract: at most 15).
    public var streamKeepAliveSeconds = 15
    /// Live streams one client address may hold open at once.
    public var streamsPerClient = 16
    /// Hosts webhooks and push endpoints may name even when they resolve to loopback or private
    /// addresses (by default only public addresses are called).
    public var webhookAllowHosts: [String] = []
    /// The contact push services see in VAPID tokens (`mailto:` or `https:`).
    public var vapidSubject = "mailto:noticeboard@example.invalid"
    /// Walks (`GET /api/v1/walk` WebSockets) one client address may hold open at once.
    public var walksPerClient = 16
    /// PEM certificate chain and private key: serve HTTPS instead of HTTP.
    public var tls: (certificatePath: String, keyPath: String)?
    /// When set, `/metrics` answers only requests bearing this token.
    public var metricsToken: String?
    /// Connection caps and timeouts.
    public var connections = ConnectionSettings()
    /// Where moderators' passwords are checked: a few at once (tests read its count).
    public var passwordChecks = BcryptGate()

    public init(
        host: String = "127.0.0.1", port: Int = 8080, postRatePerMinute: Int = 30, postBurst: Int = 10,
        reportThreshold: Int = 5, trustedProxies: [String] = [], clientHashKey: SymmetricKey = SymmetricKey(size: .bits256),
        webDirectory: String? = nil, metricsRegistry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        page: PageSettings = PageSettings()
    ) {
        self.page = page
        self.webDirectory = webDirectory
        self.metricsRegistry = metricsRegistry
        self.host = host
        self.port = port
        self.postRatePerMinute = postRatePerMinute
        self.postBurst = postBurst
        self.reportThreshold = reportThreshold
        self.trustedProxies = trustedProxies
        self.clientHashKey = clientHashKey
    }
}

extension ServerSettings {
    /// HTTP/1.1 with WebSocket upgrades (the walk, on `webSockets`), behind `ConnectionGate`'s caps
    /// and timeouts, `ConnectionGuard`'s per-request timeouts and bounded headers (16 KiB a field
    /// or request line, 32 KiB in all, 100 fields), over TLS when configured. A request line
    /// between `RequestLimits`' 8 KiB and 16 KiB gets its error; anything
    /// the decoder refuses gets `MalformedRequestResponder`'s (`FirstRequestErrorResponder`'s on a
    /// connection's first request). All are the contract's JSON error.
    func serverBuilder(webSockets: Router<WalkRequestContext>, limits: ConnectionLimits) throws -> HTTPServerBuilder {
        let webSocketResponder = webSockets.buildResponder()
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(
                additionalChannelHandlers: [ConnectionGuard(limits: limits), MalformedRequestResponder()],
                httpDecoderConfiguration: .init(maxHeaderFieldSize: 16 * 1024, maxHeaderListSize: 32 * 1024, maxHeaderFieldCount: 100)),
            ws: .init(maxFrameSize: WalkRoutes.maxMessageBytes, validateUTF8: true))
        let http = HTTPServerBuilder { responder in
            GuardedChildChannel(
                base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: configuration),
                limits: limits)
        }
        guard let tls else { return http }
        let chain = try NIOSSLCertificate.fromPEMFile(tls.certificatePath).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(file: tls.keyPath, format: .pem)
        return try .tls(http, tlsConfiguration: .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key)))
    }
}

extension ServerSettings {
    /// The directory the page is served from.
    var resolvedWebDirectory: String {
        webDirectory ?? Bundle.module.url(forResource: "Web", withExtension: nil)?.path ?? "web"
    }
}
