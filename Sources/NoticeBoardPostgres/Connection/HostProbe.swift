import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// Asks database hosts what they are: in recovery (a standby) or not, read-only or not, and for
/// a primary the timeline it writes on.
enum HostProbe {
    struct Role: Sendable, Equatable {
        var inRecovery: Bool
        var readOnly: Bool
        /// The timeline of the primary's current WAL file (0 on a standby). The control file's
        /// `pg_control_checkpoint()` names a promoted node's timeline only after its next
        /// checkpoint; the WAL position names it from the promotion on.
        var timeline: Int
    }

    static let roleQuery: PostgresQuery = """
        SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on',
            CASE WHEN pg_is_in_recovery() THEN 0
                ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int END
        """
    static let timeout: Duration = .seconds(2)

    /// What a look at every host found: the host to use (if any), its timeline, why others were refused.
    struct Choice: Sendable {
        var host: DatabaseHost?
        var timeline: Int
        var refusals: [String]
        /// Every host that answered, is not refused and fits the target.
        var fitting: Set<DatabaseHost>
    }

    /// The first host, in the URL's order, that fits the target (for `prefer-standby`, the first
    /// standby, else the first that answers); all are asked at once, over connections of their
    /// own, so a dead host or a pool full of stalled calls costs no more than the timeout.
    static func choose(from endpoint: DatabaseEndpoint, fence: TimelineFence?, logger: Logger) async -> Choice {
        let roles = await withTaskGroup(of: (Int, Role?).self) { group in
            for (index, host) in endpoint.hosts.enumerated() {
                group.addTask { (index, await role(of: host, endpoint: endpoint, logger: logger)) }
            }
            var roles = [Role?](repeating: nil, count: endpoint.hosts.count)
            for await (index, role) in group { roles[index] = role }
            return roles
        }
        return choose(among: Array(zip(endpoint.hosts, roles)), target: endpoint.targetSession, lastWritten: fence?.lastWritten ?? 0)
    }

    /// The choice over answers gathered (nil: no answer). A primary behind the newest timeline
    /// seen (on another primary, or written on by this instance) is refused, and so are two
    /// primaries on the newest one: which of them the failover manager promoted cannot be told here.
    static func choose(among answers: [(DatabaseHost, Role?)], target: TargetSession, lastWritten: Int) -> Choice {
        let primaries = answers.compactMap { host, role in role.flatMap { $0.inRecovery ? nil : (host, $0.timeline) } }
        let newest = max(lastWritten, primaries.map(\.1).max() ?? 0)
        var refusals: [String] = []
        var refused = Set<DatabaseHost>()
        for (host, timeline) in primaries where timeline < newest {
            refused.insert(host)
            let whose = newest == lastWritten ? "the timeline this instance last wrote on" : "another primary's"
            refusals.append("\(host) accepts writes on timeline \(timeline), behind timeline \(newest) (\(whose)): refused as a stale primary")
        }
        let current = primaries.filter { $0.1 == newest }
        if current.count > 1 {
            refused.formUnion(current.map(\.0))
            refusals.append("\(current.map(\.0.description).joined(separator: " and ")) all accept writes on timeline \(newest): refused until one stops")
        }
        let usable = answers.filter { !refused.contains($0.0) }
        let fitting = usable.filter { _, role in role.map { target.accepts(inRecovery: $0.inRecovery, readOnly: $0.readOnly) } ?? false }
        let hosts = Set(fitting.map(\.0))
        if target == .preferStandby, let standby = usable.first(where: { $0.1?.inRecovery == true }) {
            return Choice(host: standby.0, timeline: 0, refusals: refusals, fitting: hosts)
        }
        return Choice(host: fitting.first?.0, timeline: fitting.first?.1?.timeline ?? 0, refusals: refusals, fitting: hosts)
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

    private static func read(_ rows: PostgresRowSequence) async throws -> Role {
        for try await (inRecovery, readOnly, timeline) in rows.decode((Bool, Bool, Int32).self) {
            return Role(inRecovery: inRecovery, readOnly: readOnly, timeline: Int(timeline))
        }
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
