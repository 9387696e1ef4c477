import ArgumentParser
import Foundation
import NoticeBoardCore
import NoticeBoardPostgres
import PostgresNIO

struct BeaconsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacons", abstract: "Manage the beacon registry.", subcommands: [Import.self])

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create or move beacons from a CSV file: uuid,major,minor,lat,lon,floor,name (a header line is skipped).",
            discussion: "Every row is validated like the API; bad rows are reported by line number and skipped.")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The CSV file.") var file: String

        func run() async throws {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw fail("cannot read \(file)") }
            var beacons: [Beacon] = []
            var problems: [String] = []
            for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
                let fields = line.split(separator: ",", maxSplits: 6, omittingEmptySubsequences: false)
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                if fields.allSatisfy(\.isEmpty) || (index == 0 && fields.first?.lowercased() == "uuid") { continue }
                do {
                    beacons.append(try Self.beacon(from: fields))
                } catch {
                    problems.append("line \(index + 1): \(error.field.map { "\($0) " } ?? "")\(error.message)")
                }
            }
            let valid = beacons
            let (created, moved) = try await withMigratedClient(database) { client, logger in
                let registry = PostgresBeaconStore(client: client, logger: logger)
                var created = 0, moved = 0
                for beacon in valid {
                    if try await registry.put(beacon, actor: "import") { created += 1 } else { moved += 1 }
                }
                return (created, moved)
            }
            for problem in problems { FileHandle.standardError.write(Data("\(problem)\n".utf8)) }
            print("Beacons: \(created) created, \(moved) updated, \(problems.count) rows rejected.")
            if !problems.isEmpty { throw ExitCode(2) }
        }

        static func beacon(from fields: [String]) throws(NoticeBoardCore.ValidationError) -> Beacon {
            guard fields.count >= 5 else { throw NoticeBoardCore.ValidationError(field: nil, "expected uuid,major,minor,lat,lon,floor,name") }
            let reference = try BeaconReference(uuid: fields[0], major: fields[1], minor: fields[2])
            var body: [String: JSONValue] = [:]
            for (name, index) in [("lat", 3), ("lon", 4), ("floor", 5)] where fields.count > index && !fields[index].isEmpty {
                guard let number = Double(fields[index]) else { throw NoticeBoardCore.ValidationError(field: name, "must be a number") }
                body[name] = .number(number)
            }
            if fields.count > 6 { body["name"] = .string(fields[6].trimmingCharacters(in: CharacterSet(charactersIn: "\""))) }
            return try Beacon(reference: reference, json: .object(body))
        }
    }
}
