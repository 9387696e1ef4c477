import Hummingbird
import NoticeBoardCore

/// `/healthz` (the process runs), `/readyz` (database reachable and index loaded) and
/// `/readyz/reads` (index loaded: reads are answered from memory, also while the database fails
/// over, so a load balancer keeps sending them).
struct HealthRoutes: Sendable {
    let board: Board
    // Probes come often: their answers are encoded once.
    private static let ok = ByteBuffer(string: #"{"status":"ok"}"#)
    private static let ready = ByteBuffer(string: #"{"status":"ready"}"#)

    func register(on routes: Routes<some RouterMethods<AppRequestContext>>) {
        routes.on(.get, "/healthz") { _, _ in JSONResponse.make(fixed: Self.ok) }
        routes.on(.get, "/readyz") { _, _ in
            guard board.isLoaded else { throw APIError.unavailable("the index is still loading") }
            guard await board.isStoreReachable() else { throw APIError.unavailable("the database is unreachable") }
            return JSONResponse.make(fixed: Self.ready)
        }
        routes.on(.get, "/readyz/reads") { _, _ in
            guard board.isLoaded else { throw APIError.unavailable("the index is still loading") }
            return JSONResponse.make(fixed: Self.ready)
        }
    }
}
