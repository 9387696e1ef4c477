import Logging
import Metrics
import ServiceLifecycle

/// The board's life cycle as a service: prepares the store (migrations), loads the index, retrying
/// while the database is unreachable, then keeps the index in step with the changes any instance
/// commits, through the change feed, and its places in step with the store's. Until the load is done the board says it is not loaded, and
/// the server's `/readyz` answers 503.
public struct BoardLoader: Service {
    let board: Board
    let changes: (any ChangeFeed)?
    let prepare: @Sendable () async throws -> Void
    let logger: Logger
    static let loadExecutor = BackgroundExecutor(label: "noticeboard.index-load")

    /// `changes` is `nil` for a board no other instance writes to.
    public init(board: Board, changes: (any ChangeFeed)?, prepare: @escaping @Sendable () async throws -> Void = {}, logger: Logger) {
        self.board = board
        self.changes = changes
        self.prepare = prepare
        self.logger = logger
    }

    public func run() async throws {
        // Shutdown must not wait for a database that never comes back.
        try? await cancelWhenGracefulShutdown {
            let start = try await loadUntilDone()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [board, logger] in
                    try await PlaceFollower(board: board, interval: .milliseconds(250), logger: logger).run()
                }
                group.addTask { [board] in
                    // Streams hear of a note's end within a quarter second of its instant;
                    // a compaction of the texts moves on even when no posts come.
                    while true {
                        board.publishExpiries()
                        board.tidyMemory()
                        try await Task.sleep(for: .milliseconds(250))
                    }
                }
                if let changes {
                    group.addTask { [board, logger] in try await ChangeFollower(board: board, feed: changes, logger: logger).run(after: start) }
                    group.addTask { [board, logger] in await Self.announce(board.committedChanges.stream, on: changes, logger: logger) }
                }
                try await group.waitForAll()
            }
        }
        try? await gracefulShutdown()
    }

    /// Announces this instance's committed changes to the others: one notification at a time and
    /// at most one per `spacing`, however many changes were committed meanwhile (each NOTIFY is a
    /// transaction, and wakes every follower). One that fails is not retried: followers also
    /// catch up on a timer.
    static func announce(
        _ committed: AsyncStream<Void>, on changes: any ChangeFeed, spacing: Duration = .milliseconds(20), logger: Logger
    ) async {
        for await _ in committed {
            do {
                try await changes.announce()
            } catch {
                logger.debug("could not announce changes; followers catch up on their timer", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: spacing)
        }
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
