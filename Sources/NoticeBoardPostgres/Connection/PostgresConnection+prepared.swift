import Logging
import PostgresNIO

extension PostgresConnection {
    /// Runs a prepared statement and collects its rows. PostgresNIO remembers a failed
    /// preparation on the connection and returns that error for every later use of the
    /// statement there, so after a server error that is not about the values (classes 22 and
    /// 23) the connection is closed: the pool opens a fresh one instead of failing for ever.
    func executeAll<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row] {
        do {
            var rows: [Statement.Row] = []
            for try await row in try await execute(statement, logger: logger) { rows.append(row) }
            return rows
        } catch let error as PSQLError where error.code == .server {
            let sqlState = error.serverInfo?[.sqlState] ?? ""
            if !sqlState.hasPrefix("22"), !sqlState.hasPrefix("23") { try? await close() }
            throw error
        }
    }
}
