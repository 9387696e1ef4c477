import Foundation
import NIOSSL
import PostgresNIO

/// Where and as whom to connect: parsed from a `postgres://user:password@host:port/database` URL
/// (several hosts allowed, `h1:5432,h2:5432`, as libpq takes them) or produced by the embedded cluster.
public struct DatabaseEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var hosts: [DatabaseHost]
    public var username: String
    public var password: String?
    public var database: String
    public var requireTLS: Bool
    /// Which of the hosts to use, as libpq's `target_session_attrs`.
    public var targetSession: TargetSession
    /// Set on every connection as `statement_timeout` (and twice that as
    /// `idle_in_transaction_session_timeout`): a statement whose caller gave up at its deadline
    /// is then ended by PostgreSQL too, instead of holding a backend and its locks.
    public var statementTimeout: Duration? = nil

    public var host: String { hosts[0].name }
    public var port: Int { hosts[0].port }

    public init(
        host: String, port: Int, username: String, password: String?, database: String, requireTLS: Bool = false,
        targetSession: TargetSession = .any
    ) {
        self.init(
            hosts: [DatabaseHost(name: host, port: port)], username: username, password: password, database: database,
            requireTLS: requireTLS, targetSession: targetSession)
    }

    public init(
        hosts: [DatabaseHost], username: String, password: String?, database: String, requireTLS: Bool = false,
        targetSession: TargetSession = .any
    ) {
        precondition(!hosts.isEmpty, "an endpoint needs a host")
        self.hosts = hosts
        self.username = username
        self.password = password
        self.database = database
        self.requireTLS = requireTLS
        self.targetSession = targetSession
    }

    /// `defaultTarget` applies when the URL names no `target_session_attrs`.
    public init(url text: String, defaultTarget: TargetSession = .any) throws {
        let schemes = ["postgres://", "postgresql://"]
        guard let scheme = schemes.first(where: { text.lowercased().hasPrefix($0) }) else { throw DatabaseEndpointError.invalidURL }
        let rest = text.dropFirst(scheme.count)
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostList = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        let hosts = try hostList.split(separator: ",", omittingEmptySubsequences: false).map { try DatabaseHost(parsing: String($0)) }
        // URLComponents reads the user, password, path and query once the host list is one plain name.
        let userInfo = authority.lastIndex(of: "@").map { String(authority[...$0]) } ?? ""
        guard !hosts.isEmpty, let components = URLComponents(string: "postgres://\(userInfo)host\(rest[authorityEnd...])") else {
            throw DatabaseEndpointError.invalidURL
        }
        let query = components.queryItems ?? []
        let sslMode = query.first { $0.name == "sslmode" }?.value
        var target = defaultTarget
        if let attribute = query.first(where: { $0.name == "target_session_attrs" })?.value {
            guard let parsed = TargetSession(rawValue: attribute) else { throw DatabaseEndpointError.invalidTarget(attribute) }
            target = parsed
        }
        let database = String(components.path.dropFirst())
        self.init(
            hosts: hosts, username: components.user?.removingPercentEncoding ?? "postgres",
            password: components.password?.removingPercentEncoding,
            database: database.isEmpty ? (components.user ?? "postgres") : database,
            requireTLS: ["require", "verify-ca", "verify-full"].contains(sslMode ?? ""), targetSession: target)
    }

    /// The endpoint with another database name (tests use one database each).
    public func with(database: String) -> DatabaseEndpoint {
        var copy = self
        copy.database = database
        return copy
    }

    /// The URL without the password, for logs.
    public var description: String {
        let target = targetSession == .any ? "" : "?target_session_attrs=\(targetSession.rawValue)"
        return "postgres://\(username)@\(hosts.map(\.description).joined(separator: ","))/\(database)\(target)"
    }

    /// The URL's password, else the password file's line for this host (`PGPASSFILE`, `~/.pgpass`).
    public func password(for host: DatabaseHost) -> String? {
        password ?? PasswordFile.password(host: host.name, port: host.port, database: database, username: username)
    }

    /// The pool's configuration for one of the hosts.
    public func clientConfiguration(for host: DatabaseHost? = nil) -> PostgresClient.Configuration {
        let host = host ?? hosts[0]
        var configuration = PostgresClient.Configuration(
            host: host.name, port: host.port, username: username, password: password(for: host), database: database,
            tls: requireTLS ? .require(.makeClientConfiguration()) : .disable)
        // Fail fast when the database is down: requests answer 503 instead of hanging.
        configuration.options.connectTimeout = .seconds(3)
        configuration.options.maximumConnections = 16
        // No statement of ours runs long enough to repay PostgreSQL's JIT compilation (docs/benchmarks.md).
        configuration.options.additionalStartupParameters = [("jit", "off"), ("application_name", "noticeboard"), ChangeOrigin.startupParameter]
        if let statementTimeout {
            let milliseconds = statementTimeout.components.seconds * 1000 + statementTimeout.components.attoseconds / 1_000_000_000_000_000
            configuration.options.additionalStartupParameters += [
                ("statement_timeout", "\(milliseconds)"), ("idle_in_transaction_session_timeout", "\(2 * milliseconds)"),
            ]
        }
        return configuration
    }

    /// A single connection's configuration, for asking a host what it is.
    func connectionConfiguration(for host: DatabaseHost, timeout: TimeAmount) throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host.name, port: host.port, username: username, password: password(for: host), database: database,
            tls: requireTLS ? .require(try NIOSSLContext(configuration: .makeClientConfiguration())) : .disable)
        configuration.options.connectTimeout = timeout
        return configuration
    }
}

/// One `host:port` of a database URL.
public struct DatabaseHost: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var port: Int

    public init(name: String, port: Int = 5432) {
        self.name = name
        self.port = port
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`.
    init(parsing text: String) throws {
        var name = Substring(text)
        var port = 5432
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { throw DatabaseEndpointError.invalidURL }
            let after = name[name.index(after: close)...]
            name = name[name.index(after: name.startIndex)..<close]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let value = Int(after.dropFirst()) else { throw DatabaseEndpointError.invalidURL }
                port = value
            }
        } else if let colon = name.lastIndex(of: ":") {
            guard let value = Int(name[name.index(after: colon)...]) else { throw DatabaseEndpointError.invalidURL }
            port = value
            name = name[..<colon]
        }
        guard !name.isEmpty, (1...65535).contains(port) else { throw DatabaseEndpointError.invalidURL }
        self.init(name: name.removingPercentEncoding ?? String(name), port: port)
    }

    public var description: String { name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)" }
}

/// libpq's `target_session_attrs`: which host of several to use.
public enum TargetSession: String, Sendable, CaseIterable {
    case any
    case readWrite = "read-write"
    case readOnly = "read-only"
    case primary
    case standby
    case preferStandby = "prefer-standby"

    /// Whether a host in this role may be used (in recovery: a standby; read-only: default_transaction_read_only).
    func accepts(inRecovery: Bool, readOnly: Bool) -> Bool {
        switch self {
        case .any, .preferStandby: true
        case .readWrite: !readOnly && !inRecovery
        case .readOnly: readOnly || inRecovery
        case .primary: !inRecovery
        case .standby: inRecovery
        }
    }

    /// Whether the pool writes: the timeline of its host is then the one the instance writes on.
    var writes: Bool { self == .readWrite || self == .primary }

    /// Whether the role has to be checked at all: with one host and no demand, it is used as it is.
    var needsProbing: Bool { self != .any }
}

public enum DatabaseEndpointError: Error, Equatable, CustomStringConvertible {
    case invalidURL
    case invalidTarget(String)
    public var description: String {
        switch self {
        case .invalidURL: "the database URL must look like postgres://user:password@host:5432/database (several hosts as h1:5432,h2:5432)"
        case .invalidTarget(let value):
            "target_session_attrs must be one of \(TargetSession.allCases.map(\.rawValue).joined(separator: ", ")), not \(value)"
        }
    }
}
