import ArgumentParser
import NoticeBoardPostgres
import PostgresNIO

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Apply pending database migrations (serve also does this at start).")

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let logger = database.makeLogger()
        let handle = try database.openDatabaseOrExit(logger: logger)
        defer { handle.close() }
        let client = handle.makeClient(logger: logger)
        let applied = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await Migrator(client: client, logger: logger).migrate(try Migration.bundled())
        }
        print(applied.isEmpty ? "The database is up to date." : "Applied: \(applied.joined(separator: ", "))")
    }
}
