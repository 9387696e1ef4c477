import Hummingbird
import NoticeBoardCore

/// `/healthz` (the process runs) and `/readyz` (database reachable and index loaded).
struct HealthRoutes: Sendable {
    let board: Board

    func register(on router: Router<AppRequestContext>, table: RouteTable) {
        table.on(router, .get, "/healthz") { _, _ in JSONResponse.make(["status": "ok"]) }
        table.on(router, .get, "/readyz") { _, _ in
            guard board.isLoaded else { throw APIError.unavailable("the index is still loading") }
            guard await board.store.isReachable() else { throw APIError.unavailable("the database is unreachable") }
            return JSONResponse.make(["status": "ready"])
        }
    }
}
