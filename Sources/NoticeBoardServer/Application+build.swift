import Hummingbird
import Logging
import Metrics
import NoticeBoardCore
import ServiceLifecycle

/// Builds the router; production and tests use this one function, so wiring is tested once.
public func buildRouter(
    board: Board, moderation: any ModerationStore, beacons: any BeaconStore, settings: ServerSettings,
    logger: Logger = Logger(label: "noticeboard")
) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    // Middleware applies only to routes registered after it: it comes first.
    let table = RouteTable()
    // Outermost: every response, errors too, carries the request id and the security headers.
    router.middlewares.add(RequestIdMiddleware())
    router.middlewares.add(SecurityHeadersMiddleware())
    router.middlewares.add(HeadMiddleware())
    // Closed unless origins are configured; preflights are answered before routing.
    router.middlewares.add(CORSPolicyMiddleware(allowedOrigins: Set(settings.corsOrigins)))
    // Request counts and latencies per route and status, through swift-metrics.
    router.middlewares.add(MetricsMiddleware())
    router.middlewares.add(ErrorMiddleware(routes: table))
    router.middlewares.add(RequestLimitsMiddleware())
    router.middlewares.add(PathSafetyMiddleware())
    // The web page: tried only where no route answers (so `/` and its assets), with
    // Last-Modified/ETag revalidation.
    router.middlewares.add(
        FileMiddleware(
            settings.resolvedWebDirectory, cacheControl: .init([(MediaType(type: .any), [.noCache])]), searchForIndexHtml: true,
            logger: logger))
    // Leaflet from Debian's libjs-leaflet, under /vendor/leaflet/ (gzipped when the client accepts it).
    router.middlewares.add(PrecompressedFilesMiddleware(directory: settings.page.leafletDirectory, urlPrefix: "/vendor/leaflet"))
    router.middlewares.add(
        FileMiddleware(
            settings.page.leafletDirectory, urlBasePath: "/vendor/leaflet",
            cacheControl: .init([(MediaType(type: .any), [.maxAge(86400)])]), logger: logger))
    let identity = ClientIdentity(trustedProxies: settings.trustedProxies, hashKey: settings.clientHashKey)
    PostRoutes(
        board: board, postLimiter: RateLimiter(ratePerMinute: settings.postRatePerMinute, burst: settings.postBurst),
        identity: identity
    ).register(on: router, table: table)
    let moderationRoutes = ModerationRoutes(
        board: board, store: moderation, auth: ModeratorAuth(store: moderation, tokenLifetimeSeconds: settings.tokenLifetimeSeconds), identity: identity,
        reportThreshold: settings.reportThreshold,
        loginLimiter: RateLimiter(ratePerMinute: 10, burst: 5), loginThrottle: LoginThrottle(), reportLimiter: RateLimiter(ratePerMinute: 20, burst: 10))
    moderationRoutes.register(on: router, table: table)
    BeaconRoutes(store: beacons, moderation: moderationRoutes).register(on: router, table: table)
    StreamRoutes(board: board, identity: identity, openStreams: StreamCounter(limitPerClient: settings.streamsPerClient),
        keepAliveInterval: .seconds(settings.streamKeepAliveSeconds))
        .register(on: router, table: table)
    HealthRoutes(board: board).register(on: router, table: table)
    OpenAPIRoutes().register(on: router, table: table)
    let pageConfig = ["tileURL": settings.page.tileURL, "tileAttribution": settings.page.tileAttribution]
    table.on(router, .get, "/config.json") { _, _ in JSONResponse.make(pageConfig) }
    MetricsRoutes(registry: settings.metricsRegistry, board: board, token: settings.metricsToken).register(on: router, table: table)
    return router
}

/// The application: the HTTP server plus the services it depends on (the database client,
/// the index loader), shut down gracefully on SIGTERM/SIGINT.
public func buildApplication(
    board: Board, moderation: any ModerationStore, beacons: any BeaconStore, settings: ServerSettings,
    services: [any Service], logger: Logger,
    changes: (any ChangeFeed)? = nil,
    prepare: @escaping @Sendable () async throws -> Void = {},
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> Application<RouterResponder<AppRequestContext>> {
    Application(
        router: buildRouter(board: board, moderation: moderation, beacons: beacons, settings: settings, logger: logger),
        server: try settings.serverBuilder(),
        configuration: .init(
            address: .hostname(settings.host, port: settings.port), serverName: "NoticeBoard",
            // Past the cap a few more are accepted, to be told 503; beyond those the listener stops
            // accepting until some close, so connections alone never exhaust the descriptors.
            availableConnectionsDelegate: .maximum(settings.connections.acceptedAtMost, logger: logger)),
        services: services + [IndexLoader(board: board, changes: changes, prepare: prepare, logger: logger)],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? settings.port) },
        logger: logger)
}

/// Prepares the database (migrations), loads the index after the server starts listening (so
/// `/readyz` says 503 until both are done; retries while the database is unreachable), then
/// keeps the index in step with changes any instance commits, through the change feed.
struct IndexLoader: Service {
    let board: Board
    let changes: (any ChangeFeed)?
    let prepare: @Sendable () async throws -> Void
    let logger: Logger
    static let loadExecutor = BackgroundExecutor(label: "noticeboard.index-load")

    func run() async throws {
        // Shutdown must not wait for a database that never comes back.
        try? await cancelWhenGracefulShutdown {
            let start = try await loadUntilDone()
            if let changes { try await IndexFollower(board: board, feed: changes, logger: logger).run(after: start) }
        }
        try? await gracefulShutdown()
    }

    /// Loads the index; returns the change sequence to follow from.
    private func loadUntilDone() async throws -> Int64 {
        let clock = ContinuousClock()
        while true {
            let started = clock.now
            do {
                try await prepare()
                let start = try await changes?.startingSequence() ?? 0
                try await withTaskExecutorPreference(Self.loadExecutor) { try await board.load() }
                let elapsed = clock.now - started
                Gauge(label: "noticeboard_index_load_seconds").record(elapsed.milliseconds / 1000)
                logger.info("index loaded", metadata: ["posts": "\(board.postCount)", "seconds": "\(elapsed)"])
                return start
            } catch {
                logger.warning("index load failed; retrying", metadata: ["error": "\(error)"])
                try await Task.sleep(for: .seconds(1))
            }
        }
    }
}
