import ArgumentParser
import Foundation
import NoticeBoardPostgres
import NoticeBoardServer
import PostgresNIO

struct ModeratorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moderator", abstract: "Manage moderator accounts (passwords are read from standard input).",
        subcommands: [Add.self, List.self, Remove.self, Passwd.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a moderator; the password comes from standard input.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The moderator's user name.") var name: String

        func run() async throws {
            let hash = ModeratorAuth.hashPassword(try readPassword())
            let added = try await withModerationStore(database) { try await $0.addModerator(username: name, passwordHash: hash) }
            guard added else { throw fail("moderator \(name) exists already") }
            print("Added moderator \(name).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List moderators.")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            for name in try await withModerationStore(database, { try await $0.moderators() }) { print(name) }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a moderator; its sessions end at once.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The moderator's user name.") var name: String

        func run() async throws {
            guard try await withModerationStore(database, { try await $0.removeModerator(username: name) }) else {
                throw fail("no moderator \(name)")
            }
            print("Removed moderator \(name).")
        }
    }

    struct Passwd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a moderator's password (from standard input); its sessions end.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The moderator's user name.") var name: String

        func run() async throws {
            let hash = ModeratorAuth.hashPassword(try readPassword())
            guard try await withModerationStore(database, { try await $0.setPassword(username: name, passwordHash: hash) }) else {
                throw fail("no moderator \(name)")
            }
            print("Changed the password of \(name).")
        }
    }
}

/// The first line of standard input: at least 8 characters and at most 72 bytes, as bcrypt
/// ignores every byte past the 72nd (a longer password would be accepted by its first 72).
func readPassword() throws -> String {
    guard let line = readLine(strippingNewline: true), line.count >= 8 else {
        throw fail("give the password (at least 8 characters) on standard input")
    }
    guard line.utf8.count <= ModeratorAuth.maxPasswordBytes else {
        throw fail("the password is \(line.utf8.count) bytes; bcrypt uses at most 72, so give a shorter one")
    }
    // bcrypt stops at NUL, so such a password would be accepted by what precedes it.
    guard !line.utf8.contains(0) else { throw fail("the password contains NUL; bcrypt stops there, so give one without") }
    return line
}
