import ArgumentParser
import Foundation
import Logging
import NoticeBoardPostgres
import PostgresNIO

/// `--database-url` and `--data-dir`, shared by every subcommand.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "PostgreSQL URL (postgres://user:password@host:5432/db). Default: the embedded cluster. Env: NOTICEBOARD_DATABASE_URL.")
    var databaseURL: String?

    @Option(help: "A hot standby to load the index and follow changes from (several hosts allowed; target_session_attrs defaults to prefer-standby). Default: the database URL. Env: NOTICEBOARD_READ_DATABASE_URL.")
    var readDatabaseURL: String?

    @Option(help: "Data directory: the embedded cluster and the client-hash key. Default ./.noticeboard. Env: NOTICEBOARD_DATA_DIR.")
    var dataDir: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical. Default info. Env: LOG_LEVEL.")
    var logLevel: String?

    @Option(help: "Log lines as text or json (one object per line). Default text. Env: NOTICEBOARD_LOG_FORMAT.")
    var logFormat: String?

    /// These options' values, flag over environment.
    var settings: SettingsSource {
        SettingsSource(flags: [
            "databaseURL": databaseURL.setting, "readDatabaseURL": readDatabaseURL.setting, "dataDir": dataDir.setting,
            "logLevel": logLevel.setting, "logFormat": logFormat.setting,
        ])
    }

    func validate() throws {
        do {
            if let url = resolvedDatabaseURL { _ = try Self.writeEndpoint(url) }
            if let url = resolvedReadDatabaseURL { _ = try DatabaseEndpoint(url: url, defaultTarget: .preferStandby) }
        } catch {
            throw ValidationError("\(error)")
        }
        if resolvedReadDatabaseURL != nil, resolvedDatabaseURL == nil {
            throw ValidationError("--read-database-url needs --database-url: the embedded cluster has no standby")
        }
        if let format = settings.string("logFormat"), LogFormat(rawValue: format) == nil {
            throw ValidationError("--log-format must be text or json, not \(format)")
        }
        if let level = settings.string("logLevel"), Logger.Level(rawValue: level) == nil {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical, not \(level)")
        }
    }

    var resolvedDatabaseURL: String? { settings.string("databaseURL") }
    var resolvedReadDatabaseURL: String? { settings.string("readDatabaseURL") }

    /// With several hosts, writes go to whichever is the primary (libpq's read-write) unless the URL says otherwise.
    static func writeEndpoint(_ url: String) throws -> DatabaseEndpoint {
        let endpoint = try DatabaseEndpoint(url: url)
        guard endpoint.hosts.count > 1, !url.contains("target_session_attrs=") else { return endpoint }
        return try DatabaseEndpoint(url: url, defaultTarget: .readWrite)
    }

    var resolvedDataDirectory: URL {
        URL(fileURLWithPath: settings.string("dataDir", default: "./.noticeboard")).standardizedFileURL
    }

    func makeLogger(label: String = "noticeboard") -> Logger {
        LoggingSetup.bootstrap(settings.string("logFormat").flatMap(LogFormat.init(rawValue:)) ?? .text)
        var logger = Logger(label: label)
        logger.logLevel = settings.string("logLevel").flatMap(Logger.Level.init(rawValue:)) ?? .info
        return logger
    }

    /// Like `openDatabase`, but an embedded-cluster failure (PostgreSQL missing, say) is one
    /// clear line on standard error and a non-zero exit.
    func openDatabaseOrExit(logger: Logger) throws -> DatabaseHandle {
        do {
            return try openDatabase(logger: logger)
        } catch let error as EmbeddedPostgresError {
            throw fail(error.description)
        }
    }

    /// Connects to the configured database, starting the embedded cluster when there is no URL.
    func openDatabase(logger: Logger) throws -> DatabaseHandle {
        if let url = resolvedDatabaseURL {
            return DatabaseHandle(
                endpoint: try Self.writeEndpoint(url), readEndpoint: try resolvedReadDatabaseURL.map { try DatabaseEndpoint(url: $0, defaultTarget: .preferStandby) },
                embedded: nil, isEmbedded: false)
        }
        let embedded = try EmbeddedPostgres(dataDirectory: resolvedDataDirectory, logger: logger)
        let (endpoint, owns) = try embedded.start()
        return DatabaseHandle(endpoint: endpoint, readEndpoint: nil, embedded: owns ? embedded : nil, isEmbedded: true)
    }
}

/// An open database: where it is, and the embedded cluster to stop when done (if we own it).
struct DatabaseHandle: Sendable {
    let endpoint: DatabaseEndpoint
    /// A hot standby for the index load and the change feed, if given.
    let readEndpoint: DatabaseEndpoint?
    let embedded: EmbeddedPostgres?
    let isEmbedded: Bool

    var summary: String {
        if isEmbedded { return "embedded PostgreSQL at \(endpoint)" }
        return readEndpoint.map { "\(endpoint), reads from \($0)" } ?? "\(endpoint)"
    }

    /// `statementTimeout` is set on every connection (serve's requests have a deadline; imports
    /// and migrations do not); `fence` keeps the pools off primaries behind the instance's timeline.
    func makeClient(logger: Logger, statementTimeout: Duration? = nil, fence: TimelineFence? = nil) -> DatabasePool {
        var endpoint = endpoint
        endpoint.statementTimeout = statementTimeout
        return DatabasePool(endpoint: endpoint, fence: fence, logger: logger)
    }

    func makeReadClient(logger: Logger, statementTimeout: Duration? = nil, fence: TimelineFence? = nil) -> DatabasePool? {
        readEndpoint.map { readEndpoint in
            var endpoint = readEndpoint
            endpoint.statementTimeout = statementTimeout
            return DatabasePool(endpoint: endpoint, fence: fence, logger: logger)
        }
    }

    func close() { embedded?.stop() }
}
