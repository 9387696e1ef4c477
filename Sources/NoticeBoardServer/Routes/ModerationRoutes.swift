import Hummingbird
import Metrics
import NoticeBoardCore

/// `/api/v1/moderation/posts…` and the audit log; registered on the moderation group, so a
/// moderator is in the context of every request that reaches them.
struct ModerationRoutes: Sendable {
    let board: Board

    func register(on moderation: Routes<some RouterMethods<AppRequestContext>>) {
        moderation.on(.get, "/posts", use: posts)
        moderation.on(.post, "/posts/{id}/hide") { request, context in
            try await change(.hide, request: request, context: context, reasonRequired: true)
        }
        moderation.on(.post, "/posts/{id}/restore") { request, context in
            try await change(.restore, request: request, context: context, reasonRequired: false)
        }
        moderation.on(.delete, "/posts/{id}") { request, context in
            _ = try await change(.delete, request: request, context: context, reasonRequired: true)
            return Response(status: .noContent)
        }
        moderation.on(.get, "/audit", use: audit)
    }

    @Sendable func posts(_ request: Request, context: AppRequestContext) async throws -> Response {
        let page = try await board.moderationPosts(try ModerationQuery(QueryParameters(urlQuery: request.uri.query)))
        return JSONResponse.make(PageJSON<PostJSON>.posts(page.items.map(PostJSON.init(moderated:)), nextCursor: page.nextCursor))
    }

    func change(_ action: ModerationAction, request: Request, context: AppRequestContext, reasonRequired: Bool) async throws -> Response {
        let moderator = try context.moderator()
        guard let id = context.parameters.get("id").flatMap({ Int64($0) }) else { throw APIError.notFound("no such post") }
        let reason = try await JSONBody.reason(of: request, required: reasonRequired)
        do {
            guard let change = try await board.moderate(action, postId: id, by: moderator.name, reason: reason) else {
                throw APIError.notFound("no such post")
            }
            Counter(label: "noticeboard_moderation_actions_total", dimensions: [("action", "\(action)")]).increment()
            return JSONResponse.make(PostJSON(moderated: change.post))
        } catch ModerationError.deleted {
            throw APIError(.conflict, code: "conflict", message: "the post is deleted for good")
        }
    }

    @Sendable func audit(_ request: Request, context: AppRequestContext) async throws -> Response {
        let parameters = QueryParameters(urlQuery: request.uri.query)
        let limit = try parameters.limit()
        var before: Int64?
        if let text = parameters.first("cursor") {
            guard case .time(_, let id) = try PageCursor(decoding: text) else { throw APIError.invalid("not an audit cursor", field: "cursor") }
            before = id
        }
        let page = try await board.audit(limit: limit, before: before)
        return JSONResponse.make(PageJSON(itemsKey: "entries", items: page.items.map(AuditEntryJSON.init), nextCursor: page.nextCursor))
    }
}
