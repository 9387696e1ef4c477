import ArgumentParser

@main
struct NoticeBoardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "noticeboard",
        abstract: "A location-based notice board server: notes left at a place, found by whoever stands there.",
        discussion: """
            Every option also has an environment variable (NOTICEBOARD_…); a flag wins over the environment, \
            the environment over the default. Without a database URL the server runs its own private \
            PostgreSQL cluster under the data directory.
            """,
        subcommands: [
            ServeCommand.self, MigrateCommand.self, ImportCommand.self, ExportCommand.self, ModeratorCommand.self,
            BeaconsCommand.self, PlacesCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )
}
