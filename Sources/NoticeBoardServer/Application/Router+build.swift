import Hummingbird
import Logging
import NoticeBoardCore

/// Builds the router; production and tests use this one function, so wiring is tested once.
func buildRouter(_ setup: ApplicationSetup, outbox: OutboxServices? = nil) -> Router<AppRequestContext> {
    let (board, settings, logger) = (setup.board, setup.settings, setup.logger)
    let router = Router(context: AppRequestContext.self)
    // Middleware applies only to routes registered after it: it comes first.
    let table = RouteTable()
    // Every response, errors too, carries the request id and the security headers; preflights
    // are answered before routing.
    router.middlewares.add(
        RequestPolicyMiddleware(
            cors: CORSPolicy(allowedOrigins: Set(settings.corsOrigins)), errors: ErrorTranslator(routes: table),
            files: PageFilesMiddleware(settings: settings, routes: table, logger: logger)))

    let routes = Routes(methods: router, table: table, prefix: "")
    let identity = ClientIdentity(trustedProxies: settings.trustedProxies, hashKey: settings.clientHashKey)
    let auth = ModeratorAuth(accounts: setup.accounts, tokenLifetimeSeconds: settings.tokenLifetimeSeconds, bcrypt: settings.passwordChecks)
    // Every route below it needs a moderator's bearer token; the moderator is in the context.
    let moderation = routes.group("/api/v1/moderation", middleware: ModeratorAuthenticator(auth: auth))

    let postLimiter = RateLimiter(ratePerMinute: settings.postRatePerMinute, burst: settings.postBurst)
    PostRoutes(board: board, postLimiter: postLimiter, identity: identity).register(on: routes)
    ReportRoutes(board: board, identity: identity, threshold: settings.reportThreshold, limiter: RateLimiter(ratePerMinute: 20, burst: 10))
        .register(on: routes)
    ReactionRoutes(
        board: board, identity: identity, postLimiter: postLimiter,
        likeLimiter: RateLimiter(ratePerMinute: settings.likeRatePerMinute, burst: max(1, settings.likeRatePerMinute / 4))
    ).register(on: routes)
    AuthRoutes(
        auth: auth, identity: identity, limiter: RateLimiter(ratePerMinute: 10, burst: 5), throttle: LoginThrottle(),
        unvouched: AuthRoutes.unvouchedBudget())
        .register(on: routes, authenticated: routes.group("/api/v1/auth", middleware: ModeratorAuthenticator(auth: auth)))
    ModerationRoutes(board: board).register(on: moderation)
    StatisticsRoutes(board: board).register(on: moderation)
    BeaconRoutes(board: board).register(on: routes, moderation: moderation)
    PlaceRoutes(board: board).register(on: routes, moderation: moderation)
    StreamRoutes(
        board: board, identity: identity, openStreams: StreamCounter(limitPerClient: settings.streamsPerClient),
        keepAliveInterval: .seconds(settings.streamKeepAliveSeconds)
    ).register(on: routes)
    DeviceHistoryRoutes(board: board, identity: identity).register(on: routes)
    WalkRoutes(board: board, identity: identity, openWalks: StreamCounter(limitPerClient: settings.walksPerClient)).register(on: routes)
    WebhookRoutes(outbox: outbox).register(on: moderation)
    PushRoutes(outbox: outbox, identity: identity, limiter: RateLimiter(ratePerMinute: 10, burst: 5)).register(on: routes)
    HealthRoutes(board: board, databaseStatus: setup.databaseStatus).register(on: routes)
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
