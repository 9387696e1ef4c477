import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import NoticeBoardCore

/// `/api/v1/auth/token`, `/api/v1/moderation/…` and public reports.
struct ModerationRoutes: Sendable {
    let board: Board
    let store: any ModerationStore
    let auth: ModeratorAuth
    let identity: ClientIdentity
    let reportThreshold: Int
    let loginLimiter: RateLimiter
    let loginThrottle: LoginThrottle
    let reportLimiter: RateLimiter

    func register(on router: Router<AppRequestContext>, table: RouteTable) {
        table.on(router, .post, "/api/v1/auth/token", use: login)
        table.on(router, .delete, "/api/v1/auth/token", use: logout)
        table.on(router, .post, "/api/v1/posts/{id}/reports", use: report)
        table.on(router, .get, "/api/v1/moderation/posts", use: posts)
        table.on(router, .post, "/api/v1/moderation/posts/{id}/hide") { request, context in
            try await change(.hide, request: request, context: context, reasonRequired: true)
        }
        table.on(router, .post, "/api/v1/moderation/posts/{id}/restore") { request, context in
            try await change(.restore, request: request, context: context, reasonRequired: false)
        }
        table.on(router, .delete, "/api/v1/moderation/posts/{id}") { request, context in
            _ = try await change(.delete, request: request, context: context, reasonRequired: true)
            return Response(status: .noContent)
        }
        table.on(router, .get, "/api/v1/moderation/audit", use: audit)
    }

    // MARK: Sessions

    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let client = clientAddress(request, context)
        guard case .object(let body) = try await PostRoutes.jsonBody(of: request) else {
            throw APIError.invalid("the body must be a JSON object")
        }
        guard case .string(let username)? = body["username"] else { throw APIError.invalid("username is required", field: "username") }
        guard case .string(let password)? = body["password"] else { throw APIError.invalid("password is required", field: "password") }
        // Throttled before bcrypt is paid for. A throttled attempt is refused whatever the
        // password: answering a right one would let the throttle be probed for it.
        let pseudonym = identity.hash(of: client)
        if let wait = loginThrottle.admit(username: username, address: pseudonym) { throw APIError.rateLimited(retryAfterSeconds: wait) }
        if case .limited(let wait) = loginLimiter.reserve(for: client) {
            loginThrottle.finished(username: username, address: pseudonym, succeeded: false, counted: false)
            throw APIError.rateLimited(retryAfterSeconds: wait)
        }
        let session: (token: String, expiresAt: Int64)?
        do {
            session = try await auth.login(username: username, password: password)
        } catch {
            loginThrottle.finished(username: username, address: pseudonym, succeeded: false, counted: false)
            loginLimiter.refund(for: client)
            throw error
        }
        loginThrottle.finished(username: username, address: pseudonym, succeeded: session != nil)
        guard let session else { throw APIError(.unauthorized, code: "unauthorized", message: "wrong username or password") }
        // Only failures count against an address.
        loginLimiter.refund(for: client)
        return JSONResponse.make(["token": session.token, "expiresAt": Timestamp.format(milliseconds: session.expiresAt)])
    }

    @Sendable func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try bearerToken(request)
        guard try await auth.moderator(token: token) != nil else { throw Self.unauthorized }
        try await auth.revoke(token: token)
        return Response(status: .noContent)
    }

    // MARK: Reports

    @Sendable func report(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let id = context.parameters.get("id").flatMap({ Int64($0) }) else { throw APIError.notFound("no such post") }
        let reason = try await Self.reason(of: request, required: true)!
        let client = clientAddress(request, context)
        if case .limited(let retryAfter) = reportLimiter.reserve(for: client) { throw APIError.rateLimited(retryAfterSeconds: retryAfter) }
        let outcome = try await store.report(postId: id, clientHash: identity.hash(of: client), reason: reason, threshold: reportThreshold)
        switch outcome {
        case .notFound:
            reportLimiter.refund(for: client)
            throw APIError.notFound("no such post")
        case .repeated:
            reportLimiter.refund(for: client)
            return JSONResponse.make(status: .ok, ReportJSON(status: "already reported", reportCount: nil))
        case .recorded(let count, let autoHidden):
            if let autoHidden {
                board.apply(autoHidden)
                Counter(label: "noticeboard_moderation_actions_total", dimensions: [("action", "auto_hide")]).increment()
            }
            return JSONResponse.make(status: .accepted, ReportJSON(status: "reported", reportCount: count))
        }
    }

    // MARK: Moderation

    @Sendable func posts(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try await moderator(request)
        let page = try await store.moderationPosts(try ModerationQuery(QueryParameters(urlQuery: request.uri.query)))
        return JSONResponse.make(PageJSON<PostJSON>.posts(page.items.map(PostJSON.init(moderated:)), nextCursor: page.nextCursor))
    }

    func change(_ action: ModerationAction, request: Request, context: AppRequestContext, reasonRequired: Bool) async throws -> Response {
        let actor = try await moderator(request)
        guard let id = context.parameters.get("id").flatMap({ Int64($0) }) else { throw APIError.notFound("no such post") }
        let reason = try await Self.reason(of: request, required: reasonRequired)
        do {
            guard let change = try await store.apply(action, to: id, actor: actor, reason: reason) else {
                throw APIError.notFound("no such post")
            }
            board.apply(change)
            Counter(label: "noticeboard_moderation_actions_total", dimensions: [("action", "\(action)")]).increment()
            return JSONResponse.make(PostJSON(moderated: change.post))
        } catch ModerationError.deleted {
            throw APIError(.conflict, code: "conflict", message: "the post is deleted for good")
        }
    }

    @Sendable func audit(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try await moderator(request)
        let parameters = QueryParameters(urlQuery: request.uri.query)
        let limit = try parameters.limit()
        var before: Int64?
        if let text = parameters.first("cursor") {
            guard case .time(_, let id) = try PageCursor(decoding: text) else { throw APIError.invalid("not an audit cursor", field: "cursor") }
            before = id
        }
        let page = try await store.audit(limit: limit, before: before)
        return JSONResponse.make(PageJSON(itemsKey: "entries", items: page.items.map(AuditEntryJSON.init), nextCursor: page.nextCursor))
    }

    // MARK: Helpers

    static let unauthorized = APIError(.unauthorized, code: "unauthorized", message: "a valid moderator token is required")

    func moderator(_ request: Request) async throws -> String {
        guard let name = try await auth.moderator(token: try bearerToken(request)) else { throw Self.unauthorized }
        return name
    }

    func bearerToken(_ request: Request) throws -> String {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else { throw Self.unauthorized }
        let token = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.count <= 200 else { throw Self.unauthorized }
        return token
    }

    func clientAddress(_ request: Request, _ context: AppRequestContext) -> String {
        identity.address(peer: context.remoteAddress, forwardedFor: request.headers[PostRoutes.forwardedForHeader])
    }

    /// `{"reason": "..."}`, 1...500 characters; an empty body means no reason where none is required.
    static func reason(of request: Request, required: Bool) async throws -> String? {
        guard let json = try await PostRoutes.jsonBody(of: request, allowEmpty: !required) else { return nil }
        guard case .object(let body) = json else { throw APIError.invalid("the body must be a JSON object") }
        switch body["reason"] {
        case nil, .null?:
            if required { throw APIError.invalid("reason is required", field: "reason") }
            return nil
        case .string(let text)?:
            return try TextRules.normalizedText(text, field: "reason", maxScalars: 500)
        default:
            throw APIError.invalid("reason must be a string", field: "reason")
        }
    }
}

/// The answer to a report: `{"status": "reported", "reportCount": 2}`.
struct ReportJSON: Encodable {
    var status: String
    var reportCount: Int?
}

/// One audit entry; absent post ids and reasons are written as `null`.
struct AuditEntryJSON: Encodable {
    var at: String
    var actor: String
    var action: String
    var postId: Int64?
    var reason: String?

    init(_ entry: AuditEntry) {
        (at, actor, action, postId, reason) = (Timestamp.format(milliseconds: entry.at), entry.actor, entry.action, entry.postId, entry.reason)
    }

    enum CodingKeys: String, CodingKey { case at, actor, action, postId, reason }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(at, forKey: .at)
        try container.encode(actor, forKey: .actor)
        try container.encode(action, forKey: .action)
        try container.encode(postId, forKey: .postId)
        try container.encode(reason, forKey: .reason)
    }
}
