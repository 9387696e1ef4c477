import Logging
import PostgresNIO

/// Applies pending migrations in order, each in its own transaction, recorded in
/// `schema_migrations`. An advisory lock makes concurrent runs (two servers starting at once)
/// take turns; a second run finds nothing to do.
public struct Migrator: Sendable {
    /// Arbitrary but fixed: the advisory lock key of NoticeBoard's migrations.
    static let lockKey: Int64 = 0x4E6F_7469_6365_4231

    let client: DatabasePool
    let logger: Logger

    public init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Returns the names of the migrations it applied.
    @discardableResult
    public func migrate(_ migrations: [Migration]) async throws -> [String] {
        try await client.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(\(Self.lockKey))", logger: logger)
            do {
                let applied = try await apply(migrations, on: connection)
                try await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
                return applied
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
                throw error
            }
        }
    }

    private func apply(_ migrations: [Migration], on connection: PostgresConnection) async throws -> [String] {
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """, logger: logger)
        var done = Set<Int>()
        for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: logger).decode(Int.self) {
            done.insert(version)
        }
        let known = Set(migrations.map(\.version))
        if let unknown = done.subtracting(known).max() { throw MigrationError.unknownVersionApplied(unknown) }
        var applied: [String] = []
        for migration in migrations where !done.contains(migration.version) {
            try await connection.withTransaction(logger: logger) { transaction in
                for statement in SQLScript.statements(migration.sql) {
                    try await transaction.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await transaction.query(
                    "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger)
            }
            logger.info("applied migration", metadata: ["migration": "\(migration.name)"])
            applied.append(migration.name)
        }
        return applied
    }
}
