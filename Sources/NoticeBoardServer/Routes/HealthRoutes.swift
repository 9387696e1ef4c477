import Hummingbird
import NoticeBoardCore

/// `/healthz` (the process runs), `/readyz` (writes can be taken: index loaded, a writable
/// database host in use and answering) and `/readyz/reads` (index loaded: reads are answered
/// from memory, also while the database fails over, so a load balancer keeps sending them).
struct HealthRoutes: Sendable {
    let board: Board
    /// Why no database host takes writes now (a failover, a stale primary refused), nil when one does.
    var databaseStatus: @Sendable () -> String? = { nil }
    // Probes come often: their answers are encoded once.
    private static let ok = ByteBuffer(string: #"{"status":"ok"}"#)
    private static let ready = ByteBuffer(string: #"{"status":"ready"}"#)

    func register(on routes: Routes<some RouterMethods<AppRequestContext>>) {
        routes.on(.get, "/healthz") { _, _ in JSONResponse.make(fixed: Self.ok) }
        routes.on(.get, "/readyz") { _, _ in
            guard board.isLoaded else { throw APIError.unavailable("the index is still loading") }
            // Said at once, without a query: a load balancer's check must not wait for a host search.
            if let reason = databaseStatus() { throw APIError.unavailable("the database takes no writes now: \(reason)") }
            guard await board.isStoreReachable() else { throw APIError.unavailable("the database is unreachable") }
            return JSONResponse.make(fixed: Self.ready)
        }
        routes.on(.get, "/readyz/reads") { _, _ in
            guard board.isLoaded else { throw APIError.unavailable("the index is still loading") }
            return JSONResponse.make(fixed: Self.ready)
        }
    }
}
