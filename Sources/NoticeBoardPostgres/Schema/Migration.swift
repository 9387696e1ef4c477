import Foundation

/// One numbered, forward-only schema change from `sql/` (`0001_posts.sql`, …).
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String

    /// The migrations shipped with this build, in version order.
    public static func bundled() throws -> [Migration] {
        guard let directory = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw MigrationError.missingMigrations
        }
        return try load(from: directory)
    }

    static func load(from directory: URL) throws -> [Migration] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }
        var migrations: [Migration] = []
        for name in names {
            guard let version = Int(name.prefix { $0.isNumber }) else { throw MigrationError.badName(name) }
            let sql = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            migrations.append(Migration(version: version, name: name, sql: sql))
        }
        migrations.sort { $0.version < $1.version }
        for (earlier, later) in zip(migrations, migrations.dropFirst()) where earlier.version == later.version {
            throw MigrationError.duplicateVersion(later.version)
        }
        return migrations
    }
}

public enum MigrationError: Error, CustomStringConvertible {
    case missingMigrations
    case badName(String)
    case duplicateVersion(Int)
    case unknownVersionApplied(Int)

    public var description: String {
        switch self {
        case .missingMigrations: "the SQL migrations are missing from this build"
        case .badName(let name): "migration file \(name) does not start with a version number"
        case .duplicateVersion(let version): "two migrations have version \(version)"
        case .unknownVersionApplied(let version):
            "the database has migration \(version), which this build does not know: it is older than the database"
        }
    }
}
