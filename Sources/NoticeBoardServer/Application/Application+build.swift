import Hummingbird
import NoticeBoardCore
import ServiceLifecycle
import Synchronization

/// The application: the HTTP server, the board's loader and the services they depend on, shut
/// down gracefully on SIGTERM/SIGINT.
public func buildApplication(_ setup: ApplicationSetup) throws -> some ApplicationProtocol {
    let settings = setup.settings
    let loader = BoardLoader(board: setup.board, changes: setup.changes, prepare: setup.prepare, logger: setup.logger)
    let outbox = makeOutbox(setup)
    let delivery: [any Service] = outbox.map {
        [OutboxDispatcher(store: $0.store, board: setup.board, logger: setup.logger), OutboxSender(outbox: $0, logger: setup.logger)]
    } ?? []
    let limits = ConnectionLimits(settings: settings.connections, exemptAddresses: settings.trustedProxies)
    var services = setup.services + [loader] + delivery
    // What the watchdog says of a server that will not stop: its connections, and the walk
    // handlers still running (a walk's handler can outlive its connection).
    if let watchdog = setup.watchdog {
        services = watchdog.watch(services) { "\(limits.openCount) connections open, \(WalkRoutes.open.load(ordering: .relaxed)) walk handlers running" }
    }
    return Application(
        router: buildRouter(setup, outbox: outbox),
        server: try settings.serverBuilder(webSockets: buildWebSocketRouter(setup), limits: limits),
        configuration: .init(
            address: .hostname(settings.host, port: settings.port), serverName: "NoticeBoard",
            // Past the cap a few more are accepted, to be told 503; beyond those the listener stops
            // accepting until some close, so connections alone never exhaust the descriptors.
            availableConnectionsDelegate: .maximum(settings.connections.acceptedAtMost, logger: setup.logger)),
        services: services,
        onServerRunning: { channel in await setup.onServerRunning(channel.localAddress?.port ?? settings.port) },
        logger: setup.logger)
}

/// The outbox's shared parts, when the setup has a store for it.
func makeOutbox(_ setup: ApplicationSetup) -> OutboxServices? {
    setup.outbox.map {
        OutboxServices(
            store: $0, board: setup.board, policy: HostPolicy(allowedHosts: setup.settings.webhookAllowHosts),
            vapidSubject: setup.settings.vapidSubject)
    }
}
