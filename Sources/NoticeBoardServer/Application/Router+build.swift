import Hummingbird
import Logging
import NoticeBoardCore

/// Builds the router; production and tests use this one function, so wiring is tested once.
func buildRouter(_ setup: ApplicationSetup, outbox: OutboxServices? = nil) -> Router<AppRequestContext> {
    let (board, settings, logger) = (setup.board, setup.settings, setup.logger)
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
    addFileMiddleware(to: router, settings: settings, logger: logger)

    let routes = Routes(methods: router, table: table, prefix: "")
    let identity = ClientIdentity(trustedProxies: settings.trustedProxies, hashKey: settings.clientHashKey)
    let auth = ModeratorAuth(accounts: setup.accounts, tokenLifetimeSeconds: settings.tokenLifetimeSeconds)
    // Every route below it needs a moderator's bearer token; the moderator is in the context.
    let moderation = routes.group("/api/v1/moderation", middleware: ModeratorAuthenticator(auth: auth))

    let postLimiter = RateLimiter(ratePerMinute: settings.postRatePerMinute, burst: settings.postBurst)
    let reportLimiter = RateLimiter(ratePerMinute: 20, burst: 10)
    PostRoutes(board: board, postLimiter: postLimiter, identity: identity).register(on: routes)
    ReportRoutes(board: board, identity: identity, threshold: settings.reportThreshold, limiter: reportLimiter).register(on: routes)
    ReactionRoutes(
        board: board, identity: identity, postLimiter: postLimiter,
        likeLimiter: RateLimiter(ratePerMinute: settings.likeRatePerMinute, burst: max(1, settings.likeRatePerMinute / 4)),
        reportLimiter: reportLimiter, reportThreshold: settings.reportThreshold
    ).register(on: routes)
    AuthRoutes(auth: auth, identity: identity, limiter: RateLimiter(ratePerMinute: 10, burst: 5), throttle: LoginThrottle())
        .register(on: routes, authenticated: routes.group("/api/v1/auth", middleware: ModeratorAuthenticator(auth: auth)))
    ModerationRoutes(board: board).register(on: moderation)
    StatisticsRoutes(board: board).register(on: moderation)
    BeaconRoutes(board: board).register(on: routes, moderation: moderation)
    PlaceRoutes(board: board).register(on: routes, moderation: moderation)
    StreamRoutes(
        board: board, identity: identity, openStreams: StreamCounter(limitPerClient: settings.streamsPerClient),
        keepAliveInterval: .seconds(settings.streamKeepAliveSeconds)
    ).register(on: routes)
    WalkRoutes(board: board, identity: identity, openWalks: StreamCounter(limitPerClient: settings.walksPerClient)).register(on: routes)
    WebhookRoutes(outbox: outbox).register(on: moderation)
    PushRoutes(outbox: outbox, identity: identity, limiter: RateLimiter(ratePerMinute: 10, burst: 5)).register(on: routes)
    HealthRoutes(board: board).register(on: routes)
    OpenAPIRoutes().register(on: routes)
    PageConfigRoutes(page: settings.page).register(on: routes)
    MetricsRoutes(registry: settings.metricsRegistry, board: board, token: settings.metricsToken).register(on: routes)
    return router
}

/// The router for WebSocket upgrades: the walk.
func buildWebSocketRouter(_ setup: ApplicationSetup) -> Router<WalkRequestContext> {
    let router = Router(context: WalkRequestContext.self)
    let identity = ClientIdentity(trustedProxies: setup.settings.trustedProxies, hashKey: setup.settings.clientHashKey)
    WalkRoutes(board: setup.board, identity: identity, openWalks: StreamCounter(limitPerClient: setup.settings.walksPerClient))
        .register(webSockets: router)
    return router
}

/// The web page, Leaflet and Chart.js, read into memory at start: tried only where no route answers (so
/// `/` and its assets), with Last-Modified/ETag revalidation.
private func addFileMiddleware(to router: Router<AppRequestContext>, settings: ServerSettings, logger: Logger) {
    let page = InMemoryFiles(directory: settings.resolvedWebDirectory, logger: logger)
    router.middlewares.add(
        FileMiddleware(fileProvider: page, cacheControl: .init([(MediaType(type: .any), [.noCache])]), searchForIndexHtml: true))
    // Leaflet from Debian's libjs-leaflet, under /vendor/leaflet/ (gzipped when the client accepts it).
    let leaflet = InMemoryFiles(directory: settings.page.leafletDirectory, logger: logger)
    router.middlewares.add(PrecompressedFilesMiddleware(files: leaflet, urlPrefix: "/vendor/leaflet"))
    router.middlewares.add(
        FileMiddleware(fileProvider: leaflet, urlBasePath: "/vendor/leaflet", cacheControl: .init([(MediaType(type: .any), [.maxAge(86400)])])))
    // Chart.js from Debian's libjs-chart.js, under /vendor/chartjs/, for the moderators' dashboard.
    let charts = InMemoryFiles(directory: settings.page.chartDirectory, logger: logger)
    router.middlewares.add(PrecompressedFilesMiddleware(files: charts, urlPrefix: "/vendor/chartjs"))
    router.middlewares.add(
        FileMiddleware(fileProvider: charts, urlBasePath: "/vendor/chartjs", cacheControl: .init([(MediaType(type: .any), [.maxAge(86400)])])))
}
