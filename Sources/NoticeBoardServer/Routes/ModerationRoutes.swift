import Hummingbird
import Metrics
import NoticeBoardCore

/// `/api/v1/moderation/posts…` and the audit log; registered on the moderation group, so a
/// moderator is in the context of every request that reaches them.
struct ModerationRoutes: Sendable {
    let board: Board

    func register(on moderation: Routes<some RouterMethods<AppRequestContext>>) {
        moderation.on(.get, "/posts", use: posts)
        moderation.on(.get, "/posts.csv", use: export)
        moderation.on(.get, "/posts/{id}", use: post)
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
        moderation.on(.get, "/replies", use: replies)
        moderation.on(.post, "/replies/{id}/hide") { request, context in
            try await changeReply(.hide, request: request, context: context, reasonRequired: true)
        }
        moderation.on(.post, "/replies/{id}/restore") { request, context in
            try await changeReply(.restore, request: request, context: context, reasonRequired: false)
        }
        moderation.on(.delete, "/replies/{id}") { request, context in
            _ = try await changeReply(.delete, request: request, context: context, reasonRequired: true)
            return Response(status: .noContent)
        }
    }

    @Sendable func replies(_ request: Request, context: AppRequestContext) async throws -> Response {
        let page = try await board.moderationReplies(try ReplyModerationQuery(QueryParameters(urlQuery: request.uri.query)))
        return JSONResponse.make(PageJSON(itemsKey: "replies", items: page.items.map(ReplyJSON.init(moderated:)), nextCursor: page.nextCursor))
    }

    func changeReply(_ action: ModerationAction, request: Request, context: AppRequestContext, reasonRequired: Bool) async throws -> Response {
        let moderator = try context.moderator()
        let id = try context.pathID(naming: "reply")
        let reason = try await JSONBody.reason(of: request, required: reasonRequired)
        do {
            guard let change = try await board.moderateReply(action, replyId: id, by: moderator.name, reason: reason) else {
                throw APIError.notFound("no such reply")
            }
            Counter(label: "noticeboard_moderation_actions_total", dimensions: [("action", "reply_\(action)")]).increment()
            return JSONResponse.make(ReplyJSON(moderated: change.reply))
        } catch ModerationError.deleted {
            throw APIError(.conflict, code: "conflict", message: "the reply is deleted for good")
        }
    }

    @Sendable func posts(_ request: Request, context: AppRequestContext) async throws -> Response {
        let page = try await board.moderationPosts(try ModerationQuery(QueryParameters(urlQuery: request.uri.query)))
        return JSONResponse.make(PageJSON<PostJSON>.posts(page.items.map(PostJSON.init(moderated:)), nextCursor: page.nextCursor))
    }

    /// One post in any status: an audit entry or a reply leads to it whether or not the public can see it.
    @Sendable func post(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let post = try await board.moderatedPost(id: try context.pathID(naming: "post")) else { throw APIError.notFound("no such post") }
        return JSONResponse.make(PostJSON(moderated: post))
    }

    /// The filtered list (every page of it, up to `exportLimit` rows read) as CSV for `noticeboard import`.
    @Sendable func export(_ request: Request, context: AppRequestContext) async throws -> Response {
        var query = try ModerationQuery(QueryParameters(urlQuery: request.uri.query))
        query.limit = 500
        var text = PostCSV.header
        var rows = 0
        while rows < Self.exportLimit {
            let page = try await board.moderationPosts(query)
            // A deleted note has no text left to import: left out, as `noticeboard export` does.
            for post in page.items.prefix(Self.exportLimit - rows) where post.status != .deleted { text += PostCSV.row(post) }
            rows += page.items.count
            guard let next = page.nextCursor, case .time(let createdAt, let id) = try PageCursor(decoding: next) else { break }
            query.after = (createdAt, id)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"noticeboard-notes.csv\""],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static let exportLimit = 100_000

    func change(_ action: ModerationAction, request: Request, context: AppRequestContext, reasonRequired: Bool) async throws -> Response {
        let moderator = try context.moderator()
        let id = try context.pathID(naming: "post")
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
