import ArgumentParser
import Foundation
import NoticeBoardCore
import NoticeBoardPostgres

struct PlacesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places", abstract: "Manage places (named areas).", subcommands: [Import.self])

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create or replace places from a GeoJSON FeatureCollection of Polygons with name, slug and optional floors, description.",
            discussion: "Every feature is validated like the API; bad features are reported by index (from 0) and skipped.")

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The GeoJSON file.") var file: String

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else { throw fail("cannot read \(file)") }
            let document: JSONValue
            do { document = try JSONValue.parseStrict(data) } catch { throw fail("\(file) is not valid JSON: \(error.message)") }
            let (places, problems): ([Place], [PlaceFeatures.Problem])
            do { (places, problems) = try PlaceFeatures.places(from: document) } catch { throw fail(error.message) }
            let (created, replaced) = try await withMigratedClient(database) { client, logger in
                let registry = PostgresPlaceStore(client: client, logger: logger)
                var created = 0, replaced = 0
                for place in places {
                    if try await registry.put(place, actor: "import") { created += 1 } else { replaced += 1 }
                }
                return (created, replaced)
            }
            for problem in problems {
                let field = problem.error.field.map { "\($0) " } ?? ""
                FileHandle.standardError.write(Data("feature \(problem.index): \(field)\(problem.error.message)\n".utf8))
            }
            print("Places: \(created) created, \(replaced) replaced, \(problems.count) features rejected.")
            if !problems.isEmpty { throw ExitCode(2) }
        }
    }
}
