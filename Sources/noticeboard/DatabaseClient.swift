import Logging
import NoticeBoardPostgres
import PostgresNIO

/// Runs `body` with the moderation store of the migrated database.
func withModerationStore<T: Sendable>(
    _ database: DatabaseOptions, _ body: @Sendable (PostgresModerationStore) async throws -> T
) async throws -> T {
    try await withMigratedClient(database) { client, logger in try await body(PostgresModerationStore(client: client, logger: logger)) }
}

/// Runs `body` with a client of the migrated database.
func withMigratedClient<T: Sendable>(
    _ database: DatabaseOptions, _ body: @Sendable (DatabasePool, Logger) async throws -> T
) async throws -> T {
    try await withDatabaseClient(database) { client, logger in
        try await Migrator(client: client, logger: logger).migrate(try Migration.bundled())
        return try await body(client, logger)
    }
}

/// Runs `body` with a running client of the configured database, then closes it (and stops
/// the embedded cluster if this command started it).
func withDatabaseClient<T: Sendable>(
    _ database: DatabaseOptions, _ body: @Sendable (DatabasePool, Logger) async throws -> T
) async throws -> T {
    let logger = database.makeLogger()
    let handle = try database.openDatabaseOrExit(logger: logger)
    defer { handle.close() }
    let client = handle.makeClient(logger: logger)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        defer { group.cancelAll() }
        return try await body(client, logger)
    }
}
