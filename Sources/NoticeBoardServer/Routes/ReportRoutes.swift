import Hummingbird
import Metrics
import NoticeBoardCore

/// `POST /api/v1/posts/{id}/reports`: anyone may report a post, once; enough distinct
/// reporters hide it.
struct ReportRoutes: Sendable {
    let board: Board
    let identity: ClientIdentity
    let threshold: Int
    let limiter: RateLimiter

    func register(on routes: Routes<some RouterMethods<AppRequestContext>>) {
        routes.on(.post, "/api/v1/posts/{id}/reports", use: report)
    }

    @Sendable func report(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let id = context.parameters.get("id").flatMap({ Int64($0) }) else { throw APIError.notFound("no such post") }
        let reason = try await JSONBody.reason(of: request, required: true)!
        let client = identity.address(of: request, context: context)
        if case .limited(let retryAfter) = limiter.reserve(for: client) { throw APIError.rateLimited(retryAfterSeconds: retryAfter) }
        switch try await board.report(postId: id, clientHash: identity.hash(of: client), reason: reason, threshold: threshold) {
        case .notFound:
            limiter.refund(for: client)
            throw APIError.notFound("no such post")
        case .repeated:
            limiter.refund(for: client)
            return JSONResponse.make(status: .ok, ReportJSON(status: "already reported", reportCount: nil))
        case .recorded(let count, let autoHidden):
            if autoHidden != nil {
                Counter(label: "noticeboard_moderation_actions_total", dimensions: [("action", "auto_hide")]).increment()
            }
            return JSONResponse.make(status: .accepted, ReportJSON(status: "reported", reportCount: count))
        }
    }
}
