import Logging
import NoticeBoardCore
import PostgresNIO

/// Reporting a post or a reply, in the caller's transaction: the reported row locked while it
/// may be reported, the client's report recorded once, distinct reporters counted, and the row
/// hidden when they reach the threshold.
struct ReportFlow: Sendable {
    /// Locks the reported row; returns a row only while it is open to reports.
    let lock: PostgresQuery
    /// Records the client's report; returns a row only when it is the client's first.
    let record: PostgresQuery
    /// The distinct reporters, one `int8`.
    let count: PostgresQuery

    func run<Hidden>(
        threshold: Int, on connection: PostgresConnection, logger: Logger,
        hide: (_ reason: String) async throws -> Hidden?
    ) async throws -> ReportOutcome<Hidden> {
        guard try await Self.returnsRow(lock, on: connection, logger: logger) else { return .notFound }
        guard try await Self.returnsRow(record, on: connection, logger: logger) else { return .repeated }
        var reporters = 0
        for try await value in try await connection.query(count, logger: logger).decode(Int.self) { reporters = value }
        guard reporters >= threshold else { return .recorded(reportCount: reporters, autoHidden: nil) }
        return .recorded(reportCount: reporters, autoHidden: try await hide("reported by \(reporters) clients"))
    }

    private static func returnsRow(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        var any = false
        for try await _ in try await connection.query(query, logger: logger) { any = true }
        return any
    }
}
