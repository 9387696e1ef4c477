import Logging
import NIOCore
import NIOPosix
import NoticeBoardCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The stores' way to the database: one PostgreSQL connection pool, kept on the host of the
/// endpoint that fits its target (`target_session_attrs`). With several hosts the pool watches
/// its host's role once a second and moves when the host goes away or changes role (a standby
/// promoted, a primary demoted); while no host fits, calls fail within `searchWait` with
/// `StoreError.unavailable` (the HTTP layer's 503) rather than hang or write to a standby.
public final class DatabasePool: Service, Sendable {
    private enum State {
        case searching
        case serving(PostgresClient)
    }

    private let state: Mutex<State>
    private let endpoint: DatabaseEndpoint?
    private let ownsClient: Bool
    private let logger: Logger
    let searchWait: Duration = .seconds(2)
    let watchInterval: Duration = .seconds(1)

    /// A pool for `endpoint`; run it (as a service) before use.
    public init(endpoint: DatabaseEndpoint, logger: Logger) {
        self.logger = logger
        ownsClient = true
        if endpoint.hosts.count == 1 && !endpoint.targetSession.needsProbing {
            // One host and no demand on its role: used as it is, nothing to watch.
            self.endpoint = nil
            state = Mutex(.serving(PostgresClient(configuration: endpoint.clientConfiguration(), backgroundLogger: logger)))
        } else {
            self.endpoint = endpoint
            state = Mutex(.searching)
        }
    }

    /// Wraps a client the caller runs (tests share one between stores).
    public init(_ client: PostgresClient, logger: Logger = Logger(label: "noticeboard.database")) {
        self.logger = logger
        ownsClient = false
        endpoint = nil
        state = Mutex(.serving(client))
    }

    public func run() async {
        guard let endpoint else {
            if ownsClient, let client = servingClient { await client.run() } else { try? await gracefulShutdown() }
            return
        }
        // A shutdown ends the pool's client's run: then the pool stops too, rather than look for another host.
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            guard let host = await HostProbe.choose(from: endpoint, logger: logger) else {
                try? await Task.sleep(for: .milliseconds(250))
                continue
            }
            let client = PostgresClient(configuration: endpoint.clientConfiguration(for: host), backgroundLogger: logger)
            logger.notice("database host chosen", metadata: ["host": "\(host)", "target": "\(endpoint.targetSession.rawValue)"])
            let hostLeft = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    await client.run()
                    return false
                }
                state.withLock { $0 = .serving(client) }
                group.addTask {
                    await self.watch(host, through: client, endpoint: endpoint)
                    return true
                }
                let first = await group.next() ?? false
                state.withLock { $0 = .searching }
                group.cancelAll()
                return first
            }
            guard hostLeft else { return }
            logger.warning("database host left; looking for another", metadata: ["host": "\(host)"])
        }
    }

    /// Returns when `host` no longer fits the target or stops answering; for `prefer-standby`,
    /// also when a standby is back while the pool reads from a primary.
    private func watch(_ host: DatabaseHost, through client: PostgresClient, endpoint: DatabaseEndpoint) async {
        var checks = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: watchInterval)
            let role: HostProbe.Role
            switch await HostProbe.role(through: client, logger: logger) {
            case .success(let answer): role = answer
            case .failure(let error):
                logger.warning("database host does not answer", metadata: ["host": "\(host)", "error": "\(String(reflecting: error))"])
                return
            }
            guard endpoint.targetSession.accepts(inRecovery: role.inRecovery, readOnly: role.readOnly) else {
                logger.warning("database host changed role", metadata: ["host": "\(host)", "in_recovery": "\(role.inRecovery)"])
                return
            }
            checks += 1
            if endpoint.targetSession == .preferStandby, !role.inRecovery, checks % 10 == 0,
                let better = await HostProbe.choose(from: endpoint, logger: logger), better != host
            {
                return
            }
        }
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
            guard ContinuousClock.now < deadline else {
                throw StoreError.unavailable("no database host is \(endpoint?.targetSession.rawValue ?? "available") now (failing over?)")
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
