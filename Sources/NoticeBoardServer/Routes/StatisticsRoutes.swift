import Hummingbird
import NoticeBoardCore

/// `GET /api/v1/moderation/stats`: the dashboard's numbers, buckets in UTC.
struct StatisticsRoutes: Sendable {
    let board: Board

    func register(on moderation: Routes<some RouterMethods<AppRequestContext>>) {
        moderation.on(.get, "/stats", use: stats)
    }

    @Sendable func stats(_ request: Request, context: AppRequestContext) async throws -> Response {
        try board.requireLoaded()
        let query = try StatsQuery(QueryParameters(urlQuery: request.uri.query), now: Timestamp.nowMilliseconds())
        return JSONResponse.make(StatisticsJSON(try await board.statistics(query)))
    }
}
