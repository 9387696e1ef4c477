import Foundation
import NIOSSL
import PostgresNIO

/// Where and as whom to connect: parsed from a `postgres://user:password@host:port/database` URL
/// or produced by the embedded cluster.
public struct DatabaseEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var requireTLS: Bool

    public init(host: String, port: Int, username: String, password: String?, database: String, requireTLS: Bool = false) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.requireTLS = requireTLS
    }

    public init(url text: String) throws {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, !host.isEmpty
        else {
            throw DatabaseEndpointError.invalidURL
        }
        let database = String(components.path.dropFirst())
        let sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value
        self.init(
            host: host, port: components.port ?? 5432,
            username: components.user?.removingPercentEncoding ?? "postgres",
            password: components.password?.removingPercentEncoding,
            database: database.isEmpty ? (components.user ?? "postgres") : database,
            requireTLS: ["require", "verify-ca", "verify-full"].contains(sslMode ?? ""))
    }

    /// The endpoint with another database name (tests use one database each).
    public func with(database: String) -> DatabaseEndpoint {
        var copy = self
        copy.database = database
        return copy
    }

    /// The URL without the password, for logs.
    public var description: String { "postgres://\(username)@\(host):\(port)/\(database)" }

    public func clientConfiguration() -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database,
            tls: requireTLS ? .require(.makeClientConfiguration()) : .disable)
        // Fail fast when the database is down: requests answer 503 instead of hanging.
        configuration.options.connectTimeout = .seconds(3)
        configuration.options.maximumConnections = 16
        return configuration
    }
}

public enum DatabaseEndpointError: Error, CustomStringConvertible {
    case invalidURL
    public var description: String { "the database URL must look like postgres://user:password@host:5432/database" }
}
