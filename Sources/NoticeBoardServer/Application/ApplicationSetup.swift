import Logging
import NoticeBoardCore
import ServiceLifecycle

/// Everything `buildApplication` needs: `serve` and the tests fill it in, and both get the same
/// application.
public struct ApplicationSetup: Sendable {
    public var board: Board
    /// Moderators' passwords and tokens: who may use the moderation routes.
    public var accounts: any ModeratorAccountStore
    public var settings: ServerSettings
    public var logger: Logger
    /// Run beside the server and shut down with it (the database client, the embedded cluster's
    /// supervisor).
    public var services: [any Service] = []
    /// Other instances' commits, followed after the load; `nil` when no other instance writes.
    public var changes: (any ChangeFeed)?
    /// Webhooks, push subscriptions and their deliveries; without it those routes answer 503.
    public var outbox: (any OutboxStore)?
    /// Run before each attempt to load the index (migrations).
    public var prepare: @Sendable () async throws -> Void = {}
    /// Bounds shutdown: each service gets its own deadline, and the watchdog names what still
    /// runs at the last one (`serve` sets it; tests may).
    public var watchdog: ShutdownWatchdog?
    /// Told the bound port once the server listens (port 0 picks a free one).
    public var onServerRunning: @Sendable (Int) async -> Void = { _ in }
    /// Why the database cannot take writes now (nil when it can): `/readyz` says it.
    public var databaseStatus: @Sendable () -> String? = { nil }

    public init(board: Board, accounts: any ModeratorAccountStore, settings: ServerSettings, logger: Logger) {
        self.board = board
        self.accounts = accounts
        self.settings = settings
        self.logger = logger
    }
}
