import ArgumentParser
import Crypto
import Foundation
import Hummingbird
import Logging
import NoticeBoardCore
import NoticeBoardPostgres
import NoticeBoardServer
import Metrics
import NIOPosix
import PostgresNIO
import Prometheus
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the board: the JSON API and the web page.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Address to listen on. Default 127.0.0.1. Env: NOTICEBOARD_HOST.")
    var host: String?

    @Option(help: "Port to listen on (0 picks a free one). Default 8080. Env: NOTICEBOARD_PORT.")
    var port: Int?

    @Option(help: "Posts one client may create per minute, 0 for unlimited. Default 30. Env: NOTICEBOARD_POST_RATE_PER_MINUTE.")
    var postRatePerMinute: Int?

    @Option(help: "Posts one client may create in a burst. Default 10. Env: NOTICEBOARD_POST_BURST.")
    var postBurst: Int?

    @Option(help: "Likes and unlikes one client may make per minute, 0 for unlimited. Default 120. Env: NOTICEBOARD_LIKE_RATE_PER_MINUTE.")
    var likeRatePerMinute: Int?

    @Option(help: "Distinct reporters that hide a post automatically. Default 5. Env: NOTICEBOARD_REPORT_THRESHOLD.")
    var reportThreshold: Int?

    @Option(help: "Serve the web page from this directory instead of the copy built in. Env: NOTICEBOARD_WEB_DIR.")
    var webDir: String?

    @Option(help: "Map tile URL template for the page. Default OpenStreetMap's. Env: NOTICEBOARD_TILE_URL.")
    var tileURL: String?

    @Option(help: "Attribution shown under the map tiles. Env: NOTICEBOARD_TILE_ATTRIBUTION.")
    var tileAttribution: String?

    @Option(help: "Where Leaflet is installed (Debian's libjs-leaflet). Default /usr/share/javascript/leaflet. Env: NOTICEBOARD_LEAFLET_DIR.")
    var leafletDir: String?

    @Option(help: "Where Chart.js is installed (Debian's libjs-chart.js), for the moderators' dashboard. Default /usr/share/javascript/chart.js. Env: NOTICEBOARD_CHARTJS_DIR.")
    var chartDir: String?

    @Option(help: "An origin allowed to call the API from its pages, e.g. https://example.org (repeatable). Default none. Env: NOTICEBOARD_CORS_ORIGINS (comma-separated).")
    var corsOrigin: [String] = []

    @Option(help: "Live streams one client address may hold open. Default 16. Env: NOTICEBOARD_STREAMS_PER_CLIENT.")
    var streamsPerClient: Int?

    @Option(help: "Walks (GET /api/v1/walk WebSockets) one client address may hold open. Default 16. Env: NOTICEBOARD_WALKS_PER_CLIENT.")
    var walksPerClient: Int?

    @Option(help: "Seconds between keep-alive comments on live streams, 1 to 15. Default 15. Env: NOTICEBOARD_STREAM_KEEP_ALIVE.")
    var streamKeepAlive: Int?

    @Option(help: "Seconds a moderator's login token lasts. Default 43200 (12 h). Env: NOTICEBOARD_TOKEN_LIFETIME.")
    var tokenLifetime: Int?

    @Option(help: "PEM certificate chain: serve HTTPS (with --tls-key). Env: NOTICEBOARD_TLS_CERT.")
    var tlsCert: String?

    @Option(help: "PEM private key for --tls-cert. Env: NOTICEBOARD_TLS_KEY.")
    var tlsKey: String?

    @Option(help: "A proxy whose X-Forwarded-For is trusted (repeatable). Env: NOTICEBOARD_TRUSTED_PROXIES (comma-separated).")
    var trustedProxy: [String] = []

    @Option(help: "Open connections in all; lowered to fit the descriptor limit. Default 10000. Env: NOTICEBOARD_MAX_CONNECTIONS.")
    var maxConnections: Int?

    @Option(help: "Open connections from one address (trusted proxies exempt). Default a sixteenth of --max-connections, 8 to 256. Env: NOTICEBOARD_MAX_CONNECTIONS_PER_ADDRESS.")
    var maxConnectionsPerAddress: Int?

    @Option(help: "Seconds a connection may go without delivering a request head (idle keep-alive, trickled headers). Default 30. Env: NOTICEBOARD_IDLE_TIMEOUT.")
    var idleTimeout: Double?

    @Option(help: "Seconds a request body may take to arrive after its head. Default 30. Env: NOTICEBOARD_BODY_TIMEOUT.")
    var bodyTimeout: Double?

    @Option(help: "Seconds a client may leave a response unread before it is dropped. Default 30. Env: NOTICEBOARD_WRITE_TIMEOUT.")
    var writeTimeout: Double?

    @Option(help: "Seconds shutdown waits for busy connections before closing them. Default 10. Env: NOTICEBOARD_SHUTDOWN_TIMEOUT.")
    var shutdownTimeout: Double?

    @Option(help: "Seconds a walk (WebSocket) may send nothing before it is closed. Default 600. Env: NOTICEBOARD_WALK_IDLE_TIMEOUT.")
    var walkIdleTimeout: Double?

    @Option(help: "The hosts webhooks and push endpoints may name, and only those, loopback or private ones included (repeatable). Default: any public address. Env: NOTICEBOARD_WEBHOOK_ALLOW_HOSTS (comma-separated).")
    var webhookAllowHost: [String] = []

    @Option(help: "Contact for push services in VAPID tokens, mailto: or https:. Env: NOTICEBOARD_VAPID_SUBJECT.")
    var vapidSubject: String?

    @Option(help: "Require this bearer token on /metrics (default: /metrics is open). Env: NOTICEBOARD_METRICS_TOKEN.")
    var metricsToken: String?

    func run() async throws {
        let logger = database.makeLogger()
        let settings = try resolvedSettings()
        // Request handlers are Swift tasks: on the event loops themselves they skip a hop to a
        // dispatch thread and back (docs/benchmarks.md). Only `serve` does this: `import` keeps
        // its parsing off the loop that feeds PostgreSQL.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: settings.metricsRegistry))
        let handle = try database.openDatabaseOrExit(logger: logger)
        defer { handle.close() }
        // A request's statements end in PostgreSQL at its deadline too, so a request given up on
        // frees its backend and locks; no request waits on the read pool, whose index-load chunks
        // (100 000 posts each) get more room. The timeline this instance writes on survives a restart.
        let fence = handle.isEmbedded ? nil : TimelineFence(file: try timelineFile())
        let client = handle.makeClient(logger: logger, statementTimeout: .seconds(5), fence: fence)
        let reads = handle.makeReadClient(logger: logger, statementTimeout: .seconds(30), fence: fence)
        let store = PostgresPostStore(client: client, reads: reads, logger: logger)
        let moderation = PostgresModerationStore(client: client, logger: logger)
        let board = Board(
            store: store, moderation: moderation, beacons: PostgresBeaconStore(client: client, logger: logger),
            places: PostgresPlaceStore(client: client, reads: reads, logger: logger), likes: PostgresLikeStore(client: client, logger: logger),
            replies: PostgresReplyStore(client: client, logger: logger),
            history: PostgresDeviceHistoryStore(client: client, logger: logger))
        let summary = handle.summary
        var setup = ApplicationSetup(board: board, accounts: moderation, settings: settings, logger: logger)
        setup.services = [client] + (reads.map { [$0] } ?? []) + (handle.embedded.map { [EmbeddedPostgresSupervisor(cluster: $0, port: handle.endpoint.port, logger: logger)] } ?? [])
        setup.changes = PostgresChangeFeed(client: client, reads: reads, logger: logger)
        setup.outbox = PostgresOutboxStore(client: client, logger: logger)
        setup.databaseStatus = { client.unavailableReason }
        setup.prepare = {
            // A migration may outlast a request's statement timeout: it runs on a pool of its own without one.
            let migrations = handle.makeClient(logger: logger, fence: fence)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await migrations.run() }
                defer { group.cancelAll() }
                try await Migrator(client: migrations, logger: logger).migrate(try Migration.bundled())
            }
            try await store.purgeIdempotencyKeys()
        }
        setup.onServerRunning = { port in
            // Unbuffered, so scripts waiting for this line see it at once.
            let line = "NoticeBoard listening on \(settings.tls == nil ? "http" : "https")://\(settings.host):\(port) — database: \(summary)\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
        // Shutdown ends by this deadline whatever a service does: the watchdog names what still
        // runs, stops the cluster this process owns and exits (issue 37).
        let watchdog = ShutdownWatchdog(deadline: settings.connections.shutdownTimeout + ShutdownWatchdog.grace, logger: logger) { _ in handle.close() }
        watchdog.armOnSignals()
        setup.watchdog = watchdog
        let app = try buildApplication(setup)
        try await app.runService()
    }

    /// The serve command's own options, flag over environment.
    var source: SettingsSource {
        SettingsSource(flags: [
            "host": host.setting, "port": port.setting, "postRatePerMinute": postRatePerMinute.setting, "postBurst": postBurst.setting,
            "likeRatePerMinute": likeRatePerMinute.setting, "reportThreshold": reportThreshold.setting, "webDir": webDir.setting,
            "tileUrl": tileURL.setting, "tileAttribution": tileAttribution.setting, "leafletDir": leafletDir.setting,
            "chartjsDir": chartDir.setting, "corsOrigins": corsOrigin.setting, "streamsPerClient": streamsPerClient.setting,
            "walksPerClient": walksPerClient.setting, "streamKeepAlive": streamKeepAlive.setting, "tokenLifetime": tokenLifetime.setting,
            "tlsCert": tlsCert.setting, "tlsKey": tlsKey.setting, "trustedProxies": trustedProxy.setting,
            "maxConnections": maxConnections.setting, "maxConnectionsPerAddress": maxConnectionsPerAddress.setting,
            "idleTimeout": idleTimeout.setting, "bodyTimeout": bodyTimeout.setting, "writeTimeout": writeTimeout.setting,
            "shutdownTimeout": shutdownTimeout.setting, "walkIdleTimeout": walkIdleTimeout.setting,
            "webhookAllowHosts": webhookAllowHost.setting, "vapidSubject": vapidSubject.setting, "metricsToken": metricsToken.setting,
            "clientHashKey": nil,
        ])
    }

    func resolvedSettings() throws -> ServerSettings {
        let source = source
        var settings = ServerSettings(
            host: source.string("host", default: "127.0.0.1"),
            port: try source.integer("port", default: 8080),
            postRatePerMinute: try source.integer("postRatePerMinute", default: 30),
            postBurst: try source.integer("postBurst", default: 10),
            reportThreshold: try source.integer("reportThreshold", default: 5),
            trustedProxies: source.list("trustedProxies"),
            clientHashKey: try clientHashKey(secret: source.string("clientHashKey")),
            webDirectory: source.string("webDir"),
            page: PageSettings(
                tileURL: source.string("tileUrl", default: PageSettings.openStreetMapTiles),
                tileAttribution: source.string("tileAttribution", default: PageSettings.openStreetMapAttribution),
                leafletDirectory: source.string("leafletDir", default: PageSettings.debianLeaflet),
                chartDirectory: source.string("chartjsDir", default: PageSettings.debianChartJS)))
        settings.corsOrigins = source.list("corsOrigins")
        settings.likeRatePerMinute = try source.integer("likeRatePerMinute", default: 120)
        guard settings.likeRatePerMinute >= 0 else { throw ValidationError("the like rate must not be negative") }
        settings.streamsPerClient = try source.integer("streamsPerClient", default: 16)
        switch (source.string("tlsCert"), source.string("tlsKey")) {
        case (let cert?, let key?): settings.tls = (cert, key)
        case (nil, nil): break
        default: throw ValidationError("--tls-cert and --tls-key go together")
        }
        settings.tokenLifetimeSeconds = try source.integer("tokenLifetime", default: ModeratorAuth.defaultTokenLifetimeSeconds)
        guard settings.tokenLifetimeSeconds >= 1 else { throw ValidationError("--token-lifetime must be at least 1 second") }
        settings.streamKeepAliveSeconds = try source.integer("streamKeepAlive", default: 15)
        guard (1...15).contains(settings.streamKeepAliveSeconds) else { throw ValidationError("--stream-keep-alive must be 1 to 15 seconds") }
        settings.walksPerClient = try source.integer("walksPerClient", default: 16)
        guard settings.walksPerClient >= 1 else { throw ValidationError("--walks-per-client must be at least 1") }
        guard settings.streamsPerClient >= 1 else { throw ValidationError("--streams-per-client must be at least 1") }
        guard (0...65535).contains(settings.port) else { throw ValidationError("the port must be in 0...65535") }
        guard settings.postRatePerMinute >= 0 else { throw ValidationError("the post rate must not be negative") }
        guard settings.postBurst >= 1 else { throw ValidationError("the post burst must be at least 1") }
        guard settings.reportThreshold >= 1 else { throw ValidationError("the report threshold must be at least 1") }
        settings.connections = try resolvedConnectionSettings(source)
        settings.metricsToken = source.string("metricsToken")
        settings.webhookAllowHosts = source.list("webhookAllowHosts")
        if let subject = source.string("vapidSubject") {
            guard subject.hasPrefix("mailto:") || subject.hasPrefix("https://") else { throw ValidationError("--vapid-subject must be a mailto: or https: URL") }
            settings.vapidSubject = subject
        }
        return settings
    }

    func resolvedConnectionSettings(_ source: SettingsSource) throws -> ConnectionSettings {
        var connections = ConnectionSettings()
        connections.maxConnections = try source.integer("maxConnections", default: connections.maxConnections)
        let perAddress = try source.integer("maxConnectionsPerAddress", default: 0)
        connections.maxConnectionsPerAddress = perAddress == 0 ? nil : perAddress
        guard connections.maxConnections >= 1, perAddress >= 0 else {
            throw ValidationError("--max-connections and --max-connections-per-address must be at least 1")
        }
        connections.walkIdleTimeout = try source.seconds("walkIdleTimeout", default: connections.walkIdleTimeout)
        connections.idleTimeout = try source.seconds("idleTimeout", default: connections.idleTimeout)
        connections.bodyTimeout = try source.seconds("bodyTimeout", default: connections.bodyTimeout)
        connections.writeTimeout = try source.seconds("writeTimeout", default: connections.writeTimeout)
        connections.shutdownTimeout = try source.seconds("shutdownTimeout", default: connections.shutdownTimeout)
        // Descriptors run out before the cap otherwise; a process at its descriptor limit fails
        // in ways nobody chose. Some are kept for the database, files and the listener.
        let descriptors = DescriptorLimit.raiseToHardLimit()
        let reserve = min(512, max(64, descriptors / 4))
        if connections.maxConnections > descriptors - reserve {
            connections.maxConnections = max(1, descriptors - reserve)
            FileHandle.standardError.write(Data(
                "noticeboard: at most \(connections.maxConnections) connections: the descriptor limit is \(descriptors)\n".utf8))
        }
        return connections
    }

    /// `<data-dir>/database-timeline`: the newest timeline this instance wrote on.
    func timelineFile() throws -> URL {
        let directory = database.resolvedDataDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("database-timeline")
    }

    /// NOTICEBOARD_CLIENT_HASH_KEY (shared by all instances), else a random key kept in the data directory.
    func clientHashKey(secret: String?) throws -> SymmetricKey {
        if let secret {
            return SymmetricKey(data: SHA256.hash(data: Data(secret.utf8)))
        }
        let directory = database.resolvedDataDirectory
        let file = directory.appendingPathComponent("client-hash.key")
        if let data = try? Data(contentsOf: file), data.count == 32 { return SymmetricKey(data: data) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = SymmetricKey(size: .bits256)
        try PrivateFile.write(key.withUnsafeBytes { Array($0) }, to: file)
        return key
    }
}
