import HTTPTypes
import Hummingbird
import Metrics
import NoticeBoardCore

/// Likes, replies and deleting your own note: what a device does to notes on the board.
struct ReactionRoutes: Sendable {
    let board: Board
    let identity: ClientIdentity
    /// Shared with posting: a reply counts as a post against the client's rate.
    let postLimiter: RateLimiter
    let likeLimiter: RateLimiter

    func register(on routes: Routes<some RouterMethods<AppRequestContext>>) {
        routes.on(.put, "/api/v1/posts/{id}/like") { request, context in try await like(request, context, liked: true) }
        routes.on(.delete, "/api/v1/posts/{id}/like") { request, context in try await like(request, context, liked: false) }
        routes.on(.delete, "/api/v1/posts/{id}", use: deleteOwn)
        routes.on(.post, "/api/v1/posts/{id}/replies", use: reply)
        routes.on(.get, "/api/v1/posts/{id}/replies", use: replies)
    }

    func like(_ request: Request, _ context: AppRequestContext, liked: Bool) async throws -> Response {
        try board.requireLoaded()
        let id = try context.pathID(naming: "post")
        let device = try identity.requiredDeviceHash(of: request)
        let client = identity.address(of: request, context: context)
        if case .limited(let retryAfter) = likeLimiter.reserve(for: client) { throw APIError.rateLimited(retryAfterSeconds: retryAfter) }
        guard let result = try await board.setLike(postId: id, deviceHash: device, liked: liked) else {
            likeLimiter.refund(for: client)
            throw APIError.notFound("no such post")
        }
        // A repeat changes nothing and does not count against the client.
        if result.changed {
            Counter(label: "noticeboard_likes_total", dimensions: [("change", liked ? "like" : "unlike")]).increment()
        } else {
            likeLimiter.refund(for: client)
        }
        return JSONResponse.make(LikeJSON(likeCount: result.likeCount, likedByMe: liked))
    }

    @Sendable func deleteOwn(_ request: Request, context: AppRequestContext) async throws -> Response {
        // `DELETE /api/v1/posts/nearby` lands here too: `ErrorTranslator` answers it 405.
        let id = try context.pathID(naming: "post")
        try board.requireLoaded()
        guard let device = try identity.deviceHash(of: request) else {
            throw APIError(.forbidden, code: "forbidden", message: "only the device that made a note may delete it")
        }
        switch try await board.deleteByAuthor(postId: id, deviceHash: device) {
        case .deleted:
            Counter(label: "noticeboard_moderation_actions_total", dimensions: [("action", "author_delete")]).increment()
            return Response(status: .noContent)
        case .forbidden:
            throw APIError(.forbidden, code: "forbidden", message: "only the device that made a note may delete it")
        case .notFound:
            throw APIError.notFound("no such post")
        }
    }

    @Sendable func reply(_ request: Request, context: AppRequestContext) async throws -> Response {
        try board.requireLoaded()
        let id = try context.pathID(naming: "post")
        let key = try PostRoutes.idempotencyKey(of: request)
        let json = try await JSONBody.read(request)
        let submission = try ReplySubmission(json: json)
        let device = try identity.deviceHash(of: request)
        // The route is part of the fingerprint: one key cannot stand for a post and a reply.
        let idempotency = key.map { IdempotencyRequest(key: $0, fingerprint: HexDigest.sha256("reply \(id) " + json.canonicalText)) }
        let client = identity.address(of: request, context: context)
        if case .limited(let retryAfter) = postLimiter.reserve(for: client) {
            if let idempotency, let replayed = try await board.replayReply(idempotency) { return replyResponse(replayed, device: device) }
            throw APIError.rateLimited(retryAfterSeconds: retryAfter)
        }
        let outcome: ReplyOutcome?
        do {
            outcome = try await board.reply(
                to: id, submission, deviceHash: device, clientHash: identity.hash(of: client), idempotency: idempotency)
        } catch {
            postLimiter.refund(for: client)
            throw error
        }
        guard let outcome else {
            postLimiter.refund(for: client)
            throw APIError.notFound("no such post")
        }
        if case .replayed = outcome { postLimiter.refund(for: client) } else { Counter(label: "noticeboard_replies_total").increment() }
        return replyResponse(outcome, device: device)
    }

    func replyResponse(_ outcome: ReplyOutcome, device: String?) -> Response {
        let status: HTTPResponse.Status = if case .created = outcome { .created } else { .ok }
        return JSONResponse.make(status: status, ReplyJSON(outcome.reply, deviceHash: device))
    }

    @Sendable func replies(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.pathID(naming: "post")
        let parameters = QueryParameters(urlQuery: request.uri.query)
        let limit = try parameters.limit()
        let after = try parameters.timeCursor()
        let device = try identity.deviceHash(of: request)
        guard let page = try await board.replies(postId: id, limit: limit, after: after) else { throw APIError.notFound("no such post") }
        return JSONResponse.make(
            PageJSON(itemsKey: "replies", items: page.items.map { ReplyJSON($0, deviceHash: device) }, nextCursor: page.nextCursor))
    }
}
