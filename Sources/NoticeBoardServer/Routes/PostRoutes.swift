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
        // The header is checked before the body, so a bad key is reported as itself whatever the body.
        let key = try Self.idempotencyKey(of: request)
        let json = try await JSONBody.read(request)
        let submission = try PostSubmission(json: json)
        let idempotency = key.map { IdempotencyRequest(key: $0, fingerprint: HexDigest.sha256(json.canonicalText)) }
        let deviceHash = try identity.deviceHash(of: request)
        let client = identity.address(of: request, context: context)
        if case .limited(let retryAfter) = postLimiter.reserve(for: client) {
            if let idempotency, let replayed = try await board.replay(idempotency) {
                return try await postResponse(replayed, deviceHash: deviceHash)
            }
            throw APIError.rateLimited(retryAfterSeconds: retryAfter)
        }
        let outcome: CreateOutcome
        do {
            outcome = try await board.submit(submission, clientHash: identity.hash(of: client), deviceHash: deviceHash, idempotency: idempotency)
        } catch {
            postLimiter.refund(for: client)
            throw error
        }
        if case .replayed = outcome { postLimiter.refund(for: client) }
        return try await postResponse(outcome, deviceHash: deviceHash)
    }

    /// The request's `Idempotency-Key`, validated (1 to 200 characters), or `nil` without one.
    static func idempotencyKey(of request: Request) throws(ValidationError) -> String? {
        try request.headers[idempotencyKeyHeader].map { key throws(ValidationError) in try IdempotencyRequest.validatedKey(key) }
    }

    func postResponse(_ outcome: CreateOutcome, deviceHash: String?) async throws -> Response {
        let status: HTTPResponse.Status = if case .created = outcome { .created } else { .ok }
        var json = PostJSON(post: outcome.post)
        json.viewer = await board.viewerMarks(for: [outcome.post], deviceHash: deviceHash)?[outcome.post.id]
        return JSONResponse.make(status: status, json, headers: [.location: "/api/v1/posts/\(outcome.post.id)"])
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        try board.requireLoaded()
        let deviceHash = try identity.deviceHash(of: request)
        guard let post = board.post(id: try context.pathID(naming: "post")) else {
            throw APIError.notFound("no such post")
        }
        var json = PostJSON(post: post)
        json.viewer = await board.viewerMarks(for: [post], deviceHash: deviceHash)?[post.id]
        return JSONResponse.make(json)
    }

    @Sendable func nearby(_ request: Request, context: AppRequestContext) async throws -> Response {
        try board.requireLoaded()
        let parameters = QueryParameters(urlQuery: request.uri.query)
        let fields = try PostFields.parse(parameters)
        let deviceHash = try identity.deviceHash(of: request)
        return JSONResponse.make(fixed: try await Self.nearbyPage(board, try NearbyQuery(parameters), fields: fields, deviceHash: deviceHash))
    }

    /// The nearby answer, written from the board's bytes while it holds its read lock.
    static func nearbyPage(_ board: Board, _ query: NearbyQuery, fields: PostFields, deviceHash: String?) async throws -> ByteBuffer {
        var page = PostPageJSON(fields: fields, viewer: deviceHash != nil)
        let end = try await board.nearby(query, viewer: deviceHash) { post, distance, bearing in
            page.add(post, distance: distance, bearing: bearing)
        }
        let liked = await likedPosts(board, deviceHash: deviceHash, among: page.likeCandidates)
        return page.finish(end, liked: liked)
    }

    @Sendable func browse(_ request: Request, context: AppRequestContext) async throws -> Response {
        try board.requireLoaded()
        let parameters = QueryParameters(urlQuery: request.uri.query)
        let query = try BrowseQuery(parameters)
        let fields = try PostFields.parse(parameters, available: PostFields.all.subtracting([.distance, .bearing]))
        let deviceHash = try identity.deviceHash(of: request)
        return JSONResponse.make(fixed: try await Self.browsePage(board, query, fields: fields, deviceHash: deviceHash))
    }

    /// The browse answer, written as `nearbyPage` writes nearby's.
    static func browsePage(_ board: Board, _ query: BrowseQuery, fields: PostFields, deviceHash: String?) async throws -> ByteBuffer {
        var page = PostPageJSON(fields: fields, viewer: deviceHash != nil)
        let end = try board.browse(query, viewer: deviceHash) { page.add($0) }
        let liked = await likedPosts(board, deviceHash: deviceHash, among: page.likeCandidates)
        return page.finish(end, liked: liked)
    }

    /// Which of these posts the device likes. Reads are answered from memory while the
    /// database is away: then no post shows as liked.
    static func likedPosts(_ board: Board, deviceHash: String?, among ids: [Int64]) async -> Set<Int64> {
        guard let deviceHash, !ids.isEmpty else { return [] }
        return (try? await board.likedPosts(deviceHash: deviceHash, among: ids)) ?? []
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
