import Hummingbird
import Metrics
import NoticeBoardCore

/// Reports of posts and of replies: anyone may report one, once; enough distinct reporters hide it.
struct ReportRoutes: Sendable {
    let board: Board
    let identity: ClientIdentity
    let threshold: Int
    let limiter: RateLimiter

    func register(on routes: Routes<some RouterMethods<AppRequestContext>>) {
        routes.on(.post, "/api/v1/posts/{id}/reports") { request, context in
            try await report(request, context, naming: "post") { try await board.report(postId: $0, clientHash: $1, reason: $2, threshold: threshold) }
        }
        routes.on(.post, "/api/v1/replies/{id}/reports") { request, context in
            try await report(request, context, naming: "reply") { try await board.reportReply(replyId: $0, clientHash: $1, reason: $2, threshold: threshold) }
        }
    }

    /// Files the client's report of the path's record through `file` (its id, the client's hash, the reason).
    func report<Hidden>(
        _ request: Request, _ context: AppRequestContext, naming what: String,
        _ file: (Int64, String, String) async throws -> ReportOutcome<Hidden>
    ) async throws -> Response {
        let id = try context.pathID(naming: what)
        let reason = try await JSONBody.reason(of: request, required: true)!
        let client = identity.address(of: request, context: context)
        if case .limited(let retryAfter) = limiter.reserve(for: client) { throw APIError.rateLimited(retryAfterSeconds: retryAfter) }
        switch try await file(id, identity.hash(of: client), reason) {
        case .notFound:
            limiter.refund(for: client)
            throw APIError.notFound("no such \(what)")
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
