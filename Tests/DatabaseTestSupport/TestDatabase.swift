import Foundation
import Logging
import NoticeBoardPostgres
import PostgresNIO
import Synchronization

/// Real PostgreSQL for the tests: the embedded launcher starts one private cluster per test
/// process (or `NOTICEBOARD_TEST_DATABASE_URL` names a server), and every test gets a fresh,
/// migrated database of its own, so tests run in parallel without seeing each other's posts.
public enum TestDatabase {
    public static let logger: Logger = {
        var logger = Logger(label: "tests")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        return logger
    }()

    private static let counter = Atomic<Int>(0)

    /// The administrative endpoint, started once.
    public static let admin: Result<DatabaseEndpoint, any Error> = Result {
        if let url = ProcessInfo.processInfo.environment["NOTICEBOARD_TEST_DATABASE_URL"] {
            return try DatabaseEndpoint(url: url)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("noticeboard-tests-\(getpid())")
        let cluster = try EmbeddedPostgres(dataDirectory: directory, logger: logger)
        let (endpoint, _) = try cluster.start()
        clusterToStop.withLock { $0 = cluster }
        atexit {
            TestDatabase.clusterToStop.withLock { $0?.stop() }
            try? FileManager.default.removeItem(at: FileManager.default.temporaryDirectory.appendingPathComponent("noticeboard-tests-\(getpid())"))
        }
        return endpoint
    }

    static let clusterToStop = Mutex<EmbeddedPostgres?>(nil)

    /// A new empty database with every migration applied.
    public static func fresh() async throws -> DatabaseEndpoint {
        let admin = try admin.get()
        let name = "nb_test_\(getpid())_\(counter.add(1, ordering: .relaxed).newValue)"
        _ = try await withClient(admin) { client in
            try await client.query("CREATE DATABASE \(unescaped: name)", logger: logger)
        }
        let endpoint = admin.with(database: name)
        _ = try await withClient(endpoint) { client in
            try await Migrator(client: DatabasePool(client), logger: logger).migrate(try Migration.bundled())
        }
        return endpoint
    }

    /// Runs `body` with a running client, then shuts the client down.
    public static func withClient<T: Sendable>(_ endpoint: DatabaseEndpoint, _ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
        let client = PostgresClient(configuration: endpoint.clientConfiguration(), backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}
