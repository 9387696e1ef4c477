import HTTPTypes
import Hummingbird
import NoticeBoardCore

/// `/api/v1/posts…` and `/api/v1/tags`: a thin layer from HTTP to the board.
struct PostRoutes: Sendable {
    static let idempotencyKeyHeader = HTTPField.Name("Idempotency-Key")!

    let board: Board
    let postLimiter: RateLimiter
    let identity: ClientIdentity

    func register(on routes: Routes<some RouterMethods<AppRequestContext>>) {
        routes.on(.post, "/api/v1/posts", use: create)
        routes.on(.get, "/api/v1/posts", use: browse)
        routes.on(.get, "/api/v1/posts/nearby", use: nearby)
        routes.on(.get, "/api/v1/posts/clusters", use: clusters)
        routes.on(.get, "/api/v1/posts/{id}", use: show)
        routes.on(.get, "/api/v1/tags", use: tags)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        // Until the index is loaded a new post could miss it: nothing is accepted before then.
        try board.requireLoaded()
        let json = try await JSONBody.read(request)
        let submission = try PostSubmission(json: json)
        let idempotency = try request.headers[Self.idempotencyKeyHeader].map { key throws(ValidationError) in
            IdempotencyRequest(key: try IdempotencyRequest.validatedKey(key), fingerprint: HexDigest.sha256(json.canonicalText))
        }
        let client = identity.address(of: request, context: context)
        if case .limited(let retryAfter) = postLimiter.reserve(for: client) {
            if let idempotency, let replayed = try await board.replay(idempotency) { return Self.postResponse(replayed) }
            throw APIError.rateLimited(retryAfterSeconds: retryAfter)
        }
        let outcome: CreateOutcome
        do {
            outcome = try await board.submit(submission, clientHash: identity.hash(of: client), idempotency: idempotency)
        } catch {
            postLimiter.refund(for: client)
            throw error
        }
        if case .replayed = outcome { postLimiter.refund(for: client) }
        return Self.postResponse(outcome)
    }

    static func postResponse(_ outcome: CreateOutcome) -> Response {
        let status: HTTPResponse.Status = if case .created = outcome { .created } else { .ok }
        return JSONResponse.make(status: status, PostJSON(post: outcome.post), headers: [.location: "/api/v1/posts/\(outcome.post.id)"])
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        try board.requireLoaded()
        guard let id = context.parameters.get("id").flatMap({ Int64($0) }), let post = board.post(id: id) else {
            throw APIError.notFound("no such post")
        }
        return JSONResponse.make(PostJSON(post: post))
    }

    @Sendable func nearby(_ request: Request, context: AppRequestContext) async throws -> Response {
        try board.requireLoaded()
        let parameters = QueryParameters(urlQuery: request.uri.query)
        let fields = try PostFields.parse(parameters)
        let page = try await board.nearby(try NearbyQuery(parameters))
        let posts = page.items.map { PostJSON(post: $0.post, distance: $0.distance, bearing: $0.bearing, fields: fields) }
        return JSONResponse.make(PageJSON<PostJSON>.posts(posts, nextCursor: page.nextCursor))
    }

    @Sendable func browse(_ request: Request, context: AppRequestContext) async throws -> Response {
        try board.requireLoaded()
        let parameters = QueryParameters(urlQuery: request.uri.query)
        let query = try BrowseQuery(parameters)
        let fields = try PostFields.parse(parameters, available: PostFields.all.subtracting([.distance, .bearing]))
        let page = try board.browse(query)
        return JSONResponse.make(
            PageJSON<PostJSON>.posts(page.items.map { PostJSON(post: $0, fields: fields) }, nextCursor: page.nextCursor))
    }

    @Sendable func clusters(_ request: Request, context: AppRequestContext) async throws -> Response {
        try board.requireLoaded()
        let result = try board.clusters(ClustersQuery(QueryParameters(urlQuery: request.uri.query)))
        return JSONResponse.make(ClustersJSON(clusters: result.clusters.map(ClustersJSON.Entry.init), total: result.total))
    }

    @Sendable func tags(_ request: Request, context: AppRequestContext) async throws -> Response {
        try board.requireLoaded()
        let counts = try board.tags(TagsQuery(QueryParameters(urlQuery: request.uri.query)))
        return JSONResponse.make(TagCountsJSON(tags: counts.map { .init(tag: $0.tag, count: $0.count) }))
    }
}
