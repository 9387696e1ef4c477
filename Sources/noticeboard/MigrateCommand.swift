import ArgumentParser
import NoticeBoardPostgres
import PostgresNIO

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Apply pending database migrations (serve also does this at start).")

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let applied = try await withDatabaseClient(database) { client, logger in
            try await Migrator(client: client, logger: logger).migrate(try Migration.bundled())
        }
        print(applied.isEmpty ? "The database is up to date." : "Applied: \(applied.joined(separator: ", "))")
    }
}
