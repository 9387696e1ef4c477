import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// Asks database hosts what they are: in recovery (a standby) or not, read-only or not.
enum HostProbe {
    struct Role: Sendable {
        var inRecovery: Bool
        var readOnly: Bool
    }

    static let roleQuery: PostgresQuery = "SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on'"
    static let timeout: Duration = .seconds(2)

    /// The first host, in the URL's order, that fits the target (for `prefer-standby`, the first
    /// standby, else the first that answers); all are asked at once, so a dead one costs no more
    /// than its timeout.
    static func choose(from endpoint: DatabaseEndpoint, logger: Logger) async -> DatabaseHost? {
        let roles = await withTaskGroup(of: (Int, Role?).self) { group in
            for (index, host) in endpoint.hosts.enumerated() {
                group.addTask { (index, await role(of: host, endpoint: endpoint, logger: logger)) }
            }
            var roles = [Role?](repeating: nil, count: endpoint.hosts.count)
            for await (index, role) in group { roles[index] = role }
            return roles
        }
        let target = endpoint.targetSession
        if target == .preferStandby, let standby = roles.firstIndex(where: { $0?.inRecovery == true }) {
            return endpoint.hosts[standby]
        }
        let fitting = roles.firstIndex { role in role.map { target.accepts(inRecovery: $0.inRecovery, readOnly: $0.readOnly) } ?? false }
        return fitting.map { endpoint.hosts[$0] }
    }

    /// A host's role over a connection of its own, or nil if it does not answer in time.
    static func role(of host: DatabaseHost, endpoint: DatabaseEndpoint, logger: Logger) async -> Role? {
        try? await withinTimeout {
            let configuration = try endpoint.connectionConfiguration(for: host, timeout: .seconds(2))
            let connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 0, logger: logger
            ).get()
            do {
                let role = try await read(try await connection.query(roleQuery, logger: logger))
                try? await connection.close()
                return role
            } catch {
                try? await connection.close()
                throw error
            }
        }.get()
    }

    /// The role of the host a pool is on, asked through the pool; the error says why not.
    static func role(through client: PostgresClient, logger: Logger) async -> Result<Role, any Error> {
        await withinTimeout { try await read(try await client.query(roleQuery, logger: logger)) }
    }

    private static func read(_ rows: PostgresRowSequence) async throws -> Role {
        for try await (inRecovery, readOnly) in rows.decode((Bool, Bool).self) { return Role(inRecovery: inRecovery, readOnly: readOnly) }
        throw ProbeError.noRow
    }

    enum ProbeError: Error {
        case noRow
        case noAnswer(within: Duration)
    }

    /// The body's answer, or a failure after `timeout`: a host that stopped mid-query must not
    /// hold up the choice, so the body is left behind (cancelled) rather than awaited.
    private static func withinTimeout(_ body: @escaping @Sendable () async throws -> Role) async -> Result<Role, any Error> {
        let race = FirstOutcome<Role>()
        let work = Task { race.finish(await Result(catching: body)) }
        let timer = Task {
            try await Task.sleep(for: timeout)
            if race.finish(.failure(ProbeError.noAnswer(within: timeout))) { work.cancel() }
        }
        defer { timer.cancel() }
        return await Result { try await race.value() }
    }
}
