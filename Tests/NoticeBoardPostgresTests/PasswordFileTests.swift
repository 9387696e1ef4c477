import Foundation
import NoticeBoardPostgres
import Testing

/// The database password from a 0600 file, as libpq reads `PGPASSFILE`: never from the command line.
@Suite struct PasswordFileTests {
    func file(_ text: String, mode: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        return path
    }

    @Test func theFirstMatchingLineGivesThePasswordWithEscapesAndWildcards() throws {
        let path = try file("# comment\n127.0.0.1:5432:other:board:no\n127.0.0.1:*:noticeboard:board:a\\:b\\\\c\n*:*:*:*:last\n", mode: 0o600)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let environment = ["PGPASSFILE": path]
        #expect(PasswordFile.password(host: "127.0.0.1", port: 6000, database: "noticeboard", username: "board", environment: environment) == "a:b\\c")
        #expect(PasswordFile.password(host: "db", port: 5432, database: "x", username: "y", environment: environment) == "last")
    }

    @Test func aFileOthersMayReadIsIgnored() throws {
        let path = try file("*:*:*:*:secret\n", mode: 0o644)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(PasswordFile.password(host: "h", port: 1, database: "d", username: "u", environment: ["PGPASSFILE": path]) == nil)
    }

    @Test func aURLWithoutPasswordTakesItFromTheFile() throws {
        let path = try file("127.0.0.1:6001:noticeboard:noticeboard:from-file\n", mode: 0o600)
        defer { try? FileManager.default.removeItem(atPath: path) }
        setenv("PGPASSFILE", path, 1)
        defer { unsetenv("PGPASSFILE") }
        let endpoint = try DatabaseEndpoint(url: "postgres://noticeboard@127.0.0.1:6001,127.0.0.1:6002/noticeboard")
        #expect(endpoint.password == nil)
        #expect(endpoint.password(for: endpoint.hosts[0]) == "from-file")
        #expect(endpoint.password(for: endpoint.hosts[1]) == nil)
    }
}
