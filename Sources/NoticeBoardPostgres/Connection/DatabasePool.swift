import Logging
import NIOCore
import NIOPosix
import NoticeBoardCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The stores' way to the database: one PostgreSQL connection pool, kept on the host of the
/// endpoint that fits its target (`target_session_attrs`). With several hosts the pool asks every
/// host once a second, over connections of its own, and moves when its host stops answering,
/// changes role (a standby promoted, a primary demoted) or is fenced off (a primary behind the
/// timeline this instance last wrote on, or two primaries at once); while no host fits, calls fail
/// within `searchWait` with `StoreError.unavailable` (the HTTP layer's 503) rather than hang or
/// write to a standby or a stale primary. A retired client and the pool itself stop within a
/// bound, whatever state their connections are in.
public final class DatabasePool: Service, Sendable {
    private enum State {
        case searching(String)
        case serving(PostgresClient)
    }

    private let state: Mutex<State>
    /// The one host's client, served once the pool runs it (a lease before then only waits).
    private let singleHostClient: PostgresClient?
    private let endpoint: DatabaseEndpoint?
    private let fence: TimelineFence?
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    let searchWait: Duration = .seconds(2)
    let watchInterval: Duration = .seconds(1)
    /// How long a retired client's run may take to end before it is left behind.
    let retireWait: Duration = .seconds(1)

    /// A pool for `endpoint`; run it (as a service) before use. `fence` keeps the timeline this
    /// instance writes on (the write pool records it, every pool respects it).
    public init(endpoint: DatabaseEndpoint, fence: TimelineFence? = nil, logger: Logger) {
        self.logger = logger
        self.fence = fence
        if endpoint.hosts.count == 1 && !endpoint.targetSession.needsProbing {
            // One host and no demand on its role: used as it is, nothing to watch.
            self.endpoint = nil
            singleHostClient = PostgresClient(configuration: endpoint.clientConfiguration(), backgroundLogger: logger)
            state = Mutex(.searching("the pool is starting"))
        } else {
            self.endpoint = endpoint
            singleHostClient = nil
            state = Mutex(.searching("no host asked yet"))
        }
    }

    /// Wraps a client the caller runs (tests share one between stores).
    public init(_ client: PostgresClient, logger: Logger = Logger(label: "noticeboard.database")) {
        self.logger = logger
        singleHostClient = nil
        endpoint = nil
        fence = nil
        state = Mutex(.serving(client))
    }

    /// Why no host is in use now, nil while one is (`/readyz` says it).
    public var unavailableReason: String? {
        state.withLock { state in if case .searching(let why) = state { why } else { nil } }
    }

    public func run() async {
        await withTaskCancellationOrGracefulShutdownHandler {
            if let endpoint {
                await follow(endpoint)
            } else if let client = singleHostClient {
                let run = ClientRun.start(client) { self.state.withLock { $0 = .serving(client) } }
                while !isStopping, !run.hasEnded { await pause(.milliseconds(250)) }
                await stop(run)
            }
        } onCancelOrGracefulShutdown: {
            self.stopping.store(true, ordering: .relaxed)
        }
    }

    private var isStopping: Bool { stopping.load(ordering: .relaxed) || Task.isCancelled }

    /// Sleeps for `duration`, or less when the pool is told to stop.
    private func pause(_ duration: Duration) async {
        let end = ContinuousClock.now + duration
        while !isStopping, ContinuousClock.now < end {
            try? await Task.sleep(for: min(.milliseconds(50), end - ContinuousClock.now))
        }
    }

    private func stop(_ run: ClientRun) async {
        if !(await run.stop(within: retireWait)) {
            logger.warning("a database client did not stop within \(retireWait) of being retired; left behind")
        }
    }

    /// Looks for the host that fits, serves from it while it does, and looks again when it stops.
    private func follow(_ endpoint: DatabaseEndpoint) async {
        var refusals: [String] = []
        while !isStopping {
            let choice = await HostProbe.choose(from: endpoint, fence: fence, logger: logger)
            report(choice.refusals, after: &refusals)
            guard let host = choice.host else {
                let why = refusals.isEmpty ? "no host answers as \(endpoint.targetSession.rawValue)" : refusals.joined(separator: "; ")
                state.withLock { $0 = .searching(why) }
                await pause(.milliseconds(250))
                continue
            }
            if endpoint.targetSession.writes { fence?.record(choice.timeline) }
            let client = PostgresClient(configuration: endpoint.clientConfiguration(for: host), backgroundLogger: logger)
            let run = ClientRun.start(client)
            state.withLock { $0 = .serving(client) }
            logger.notice(
                "database host chosen",
                metadata: ["host": "\(host)", "target": "\(endpoint.targetSession.rawValue)", "timeline": "\(choice.timeline)"])
            let why = await watch(host, endpoint: endpoint, refusals: &refusals)
            state.withLock { $0 = .searching(why ?? "shutting down") }
            await stop(run)
            if let why { logger.warning("database host left; looking for another", metadata: ["host": "\(host)", "reason": "\(why)"]) }
        }
        state.withLock { $0 = .searching("shutting down") }
    }

    /// Returns why `host` is no longer the one to use (nil when the pool stops): it does not
    /// answer, no longer fits the target or is fenced off; for `prefer-standby`, also when a
    /// standby is back while the pool reads from a primary (looked at every tenth check).
    private func watch(_ host: DatabaseHost, endpoint: DatabaseEndpoint, refusals: inout [String]) async -> String? {
        var checks = 0
        while true {
            await pause(watchInterval)
            if isStopping { return nil }
            let choice = await HostProbe.choose(from: endpoint, fence: fence, logger: logger)
            report(choice.refusals, after: &refusals)
            guard choice.fitting.contains(host) else {
                return refusals.first { $0.contains(host.description) } ?? "it does not answer or is no longer \(endpoint.targetSession.rawValue)"
            }
            checks += 1
            if endpoint.targetSession == .preferStandby, checks % 10 == 0, let better = choice.host, better != host {
                return "\(better) is a standby again"
            }
        }
    }

    /// Logs each refusal once, when it first appears: an operator must see a stale primary at once.
    private func report(_ current: [String], after previous: inout [String]) {
        for refusal in current where !previous.contains(refusal) {
            logger.error("database host refused", metadata: ["reason": "\(refusal)"])
        }
        previous = current
    }

    private var servingClient: PostgresClient? {
        state.withLock { state in if case .serving(let client) = state { client } else { nil } }
    }

    private func client() async throws -> PostgresClient {
        let deadline = ContinuousClock.now + searchWait
        while true {
            if let client = servingClient {
                return client
            }
            guard ContinuousClock.now < deadline, !stopping.load(ordering: .relaxed) else {
                let why = unavailableReason ?? "shutting down"
                throw StoreError.unavailable("no database host is \(endpoint?.targetSession.rawValue ?? "available") now: \(why)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A call cut off because its pool was retired (the host left) fails as the database being
    /// away, which it is: the pool's own shutdown error would otherwise reach the client as a 500.
    private func retiredError(_ error: any Error, of client: PostgresClient) -> any Error {
        guard servingClient !== client else { return error }
        return StoreError.unavailable("the database host changed during the call (failing over?): \(error)")
    }

    @discardableResult
    public func query(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws -> PostgresRowSequence {
        let client = try await client()
        do {
            return try await client.query(query, logger: logger, file: file, line: line)
        } catch {
            throw retiredError(error, of: client)
        }
    }

    /// A statement PostgreSQL parses and plans once per connection, so the statements run for
    /// every post and catch-up are not parsed and planned again each time.
    public func execute<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row] {
        let client = try await client()
        do {
            return try await client.withConnection { connection in try await connection.executeAll(statement, logger: logger) }
        } catch {
            throw retiredError(error, of: client)
        }
    }

    public func withConnection<Result>(
        isolation: isolated (any Actor)? = #isolation, _ closure: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        let client = try await client()
        do {
            return try await client.withConnection(isolation: isolation, closure)
        } catch {
            throw retiredError(error, of: client)
        }
    }

    public func withTransaction<Result>(
        logger: Logger, file: String = #file, line: Int = #line, isolation: isolated (any Actor)? = #isolation,
        _ closure: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        let client = try await client()
        do {
            return try await client.withTransaction(logger: logger, file: file, line: line, isolation: isolation, closure)
        } catch {
            throw retiredError(error, of: client)
        }
    }

}
