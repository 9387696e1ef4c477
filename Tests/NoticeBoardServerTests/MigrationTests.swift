import NoticeBoardPostgres
import PostgresNIO
import Testing

@Suite struct MigrationTests {
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
                for _ in 0..<3 { group.addTask { try await Migrator(client: client, logger: TestDatabase.logger).migrate(migrations) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // Exactly one of the concurrent runs applied everything; the others found nothing to do.
            #expect(results.filter { !$0.isEmpty }.count == 1)
            #expect(results.flatMap { $0 } == migrations.map(\.name))
            #expect(try await Migrator(client: client, logger: TestDatabase.logger).migrate(migrations).isEmpty)
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
                try await Migrator(client: client, logger: TestDatabase.logger).migrate(try Migration.bundled())
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
