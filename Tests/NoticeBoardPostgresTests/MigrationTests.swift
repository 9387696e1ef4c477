import DatabaseTestSupport
import GeoIndex
import NoticeBoardPostgres
import PostgresNIO
import Testing

@Suite(.timeLimit(.minutes(5))) struct MigrationTests {
    @Test func bundledMigrationsAreNumberedFromOne() throws {
        let migrations = try Migration.bundled()
        #expect(migrations.first?.version == 1)
        #expect(migrations.map(\.version) == Array(1...migrations.count))
        #expect(migrations.allSatisfy { $0.name.hasSuffix(".sql") && !$0.sql.isEmpty })
    }

    @Test func runningTwiceOrConcurrentlyAppliesEachOnce() async throws {
        // A database created without migrations: `fresh()` migrates, so make a bare one here.
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            try await client.query("DROP SCHEMA public CASCADE", logger: TestDatabase.logger)
            try await client.query("CREATE SCHEMA public", logger: TestDatabase.logger)
            let migrations = try Migration.bundled()
            let results = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<3 { group.addTask { try await Migrator(client: DatabasePool(client), logger: TestDatabase.logger).migrate(migrations) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // Exactly one of the concurrent runs applied everything; the others found nothing to do.
            #expect(results.filter { !$0.isEmpty }.count == 1)
            #expect(results.flatMap { $0 } == migrations.map(\.name))
            #expect(try await Migrator(client: DatabasePool(client), logger: TestDatabase.logger).migrate(migrations).isEmpty)
            var versions: [Int] = []
            for try await version in try await client.query("SELECT version FROM schema_migrations ORDER BY version").decode(Int.self) {
                versions.append(version)
            }
            #expect(versions == migrations.map(\.version))
        }
    }

    @Test func aDatabaseNewerThanTheBuildIsRefused() async throws {
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            try await client.query("INSERT INTO schema_migrations (version, name) VALUES (9999, 'future.sql')", logger: TestDatabase.logger)
            await #expect(throws: MigrationError.self) {
                try await Migrator(client: DatabasePool(client), logger: TestDatabase.logger).migrate(try Migration.bundled())
            }
        }
    }

    /// Rows stored before coordinates were rounded move onto the 1e-7° grid, to exactly the
    /// doubles `FixedDegrees` gives (what new posts are stored as and the index computes with).
    @Test func olderRowsAreRoundedOntoTheFixedPointGrid() async throws {
        let endpoint = try await TestDatabase.fresh()
        let rows: [(lat: Double, lon: Double, heading: Double?)] = [
            (22.419612345678, 114.206841234567, 123.456789012), (-89.99999996, 179.99999996, 359.99999996),
            (47.3769123, -0.00000004, nil), (0.12345675, -122.08385149999, 0.00000005),
        ]
        let fixed = try Migration.bundled().first { $0.name == "0006_fixed_point_coordinates.sql" }
        let migration = try #require(fixed)
        try await TestDatabase.withClient(endpoint) { client in
            for row in rows {
                try await client.query(
                    "INSERT INTO posts (lat, lon, heading, message, tag) VALUES (\(row.lat), \(row.lon), \(row.heading), 'old', 'food')",
                    logger: TestDatabase.logger)
            }
            for statement in SQLScript.statements(migration.sql) { try await client.query(PostgresQuery(unsafeSQL: statement), logger: TestDatabase.logger) }
            var stored: [(Double, Double, Double?)] = []
            for try await row in try await client.query("SELECT lat, lon, heading FROM posts ORDER BY id", logger: TestDatabase.logger)
                .decode((Double, Double, Double?).self)
            {
                stored.append(row)
            }
            #expect(stored.count == rows.count)
            for (row, (lat, lon, heading)) in zip(rows, stored) {
                #expect(lat == FixedDegrees.quantized(row.lat))
                #expect(lon == FixedDegrees.quantized(row.lon))
                #expect(heading == row.heading.map(FixedDegrees.quantizedHeading))
            }
        }
    }

    @Test func statementsSplitOutsideQuotesAndComments() {
        let script = """
            -- a comment; with a semicolon
            CREATE TABLE a (x text DEFAULT 'semi;colon');
            /* block; comment */ CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;
            SELECT "odd;name" FROM a
            """
        let statements = SQLScript.statements(script)
        #expect(statements.count == 3)
        #expect(statements[0] == "CREATE TABLE a (x text DEFAULT 'semi;colon')")
        #expect(statements[1].hasSuffix("$body$ SELECT 1; $body$ LANGUAGE sql"))
        #expect(statements[2] == #"SELECT "odd;name" FROM a"#)
    }
}
