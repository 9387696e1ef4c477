import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NoticeBoardCore

/// `/api/v1/posts…` and `/api/v1/tags`: a thin layer from HTTP to the board.
struct PostRoutes: Sendable {
    static let maxBodyBytes = 16 * 1024
    static let idempotencyKeyHeader = HTTPField.Name("Idempotency-Key")!
    static let forwardedForHeader = HTTPField.Name("X-Forwarded-For")!

    let board: Board
    let postLimiter: RateLimiter
    let identity: ClientIdentity

    func register(on router: Router<AppRequestContext>, table: RouteTable) {
        table.on(router, .post, "/api/v1/posts", use: create)
        table.on(router, .get, "/api/v1/posts", use: browse)
        table.on(router, .get, "/api/v1/posts/nearby", use: nearby)
        table.on(router, .get, "/api/v1/posts/clusters", use: clusters)
        table.on(router, .get, "/api/v1/posts/{id}", use: show)
        table.on(router, .get, "/api/v1/tags", use: tags)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        // Until the index is loaded a new post could miss it: nothing is accepted before then.
        try requireLoaded()
        let json = try await Self.jsonBody(of: request)
        let submission = try PostSubmission(json: json)
        let idempotency = try request.headers[Self.idempotencyKeyHeader].map { key throws(ValidationError) in
            IdempotencyRequest(key: try IdempotencyRequest.validatedKey(key), fingerprint: Self.fingerprint(of: json))
        }
        let client = identity.address(peer: context.remoteAddress, forwardedFor: request.headers[Self.forwardedForHeader])
        if case .limited(let retryAfter) = postLimiter.reserve(for: client) {
            // A replay creates nothing, so it is answered even over the limit.
            if let idempotency, let replayed = try await board.store.existingPost(for: idempotency) {
                return Self.postResponse(replayed)
            }
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
        switch outcome {
        case .created(let post):
            JSONResponse.make(status: .created, PostJSON(post: post), headers: [.location: "/api/v1/posts/\(post.id)"])
        case .replayed(let post):
            JSONResponse.make(status: .ok, PostJSON(post: post), headers: [.location: "/api/v1/posts/\(post.id)"])
        }
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        try requireLoaded()
        guard let id = context.parameters.get("id").flatMap({ Int64($0) }), let post = board.post(id: id) else {
            throw APIError.notFound("no such post")
        }
        return JSONResponse.make(PostJSON(post: post))
    }

    @Sendable func nearby(_ request: Request, context: AppRequestContext) async throws -> Response {
        try requireLoaded()
        let parameters = QueryParameters(urlQuery: request.uri.query)
        let fields = try PostFields.parse(parameters)
        let query = try await board.resolvingBeacon(try NearbyQuery(parameters))
        let page = try board.nearby(query)
        let posts = page.items.map { PostJSON(post: $0.post, distance: $0.distance, bearing: $0.bearing, fields: fields) }
        return JSONResponse.make(PageJSON<PostJSON>.posts(posts, nextCursor: page.nextCursor))
    }

    @Sendable func browse(_ request: Request, context: AppRequestContext) async throws -> Response {
        try requireLoaded()
        let parameters = QueryParameters(urlQuery: request.uri.query)
        let query = try BrowseQuery(parameters)
        let fields = try PostFields.parse(parameters, available: PostFields.all.subtracting([.distance, .bearing]))
        let page = board.browse(query)
        return JSONResponse.make(
            PageJSON<PostJSON>.posts(page.items.map { PostJSON(post: $0, fields: fields) }, nextCursor: page.nextCursor))
    }

    @Sendable func clusters(_ request: Request, context: AppRequestContext) async throws -> Response {
        try requireLoaded()
        let result = board.clusters(try ClustersQuery(QueryParameters(urlQuery: request.uri.query)))
        return JSONResponse.make(ClustersJSON(clusters: result.clusters.map(ClustersJSON.Entry.init), total: result.total))
    }

    @Sendable func tags(_ request: Request, context: AppRequestContext) async throws -> Response {
        try requireLoaded()
        let counts = board.tags(try TagsQuery(QueryParameters(urlQuery: request.uri.query)))
        return JSONResponse.make(TagCountsJSON(tags: counts.map { .init(tag: $0.tag, count: $0.count) }))
    }

    private func requireLoaded() throws {
        guard board.isLoaded else { throw APIError.unavailable("the index is still loading; retry shortly") }
    }

    /// Reads a JSON body: `application/json` (any charset parameter) or 415, at most 16 KiB
    /// (chunked too) or 413, well-formed or 400 without a field.
    static func jsonBody(of request: Request) async throws -> JSONValue {
        guard let json = try await jsonBody(of: request, allowEmpty: false) else { throw APIError.invalid("the body is not valid JSON") }
        return json
    }

    /// As above; with `allowEmpty`, a request without a body gives `nil`.
    static func jsonBody(of request: Request, allowEmpty: Bool) async throws -> JSONValue? {
        if allowEmpty, request.headers[.contentLength] == "0" || (request.headers[.contentLength] == nil && request.headers[.transferEncoding] == nil) {
            return nil
        }
        let mediaType = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/json" else {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", message: "the body must be application/json")
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBodyBytes {
            throw APIError.payloadTooLarge(limit: maxBodyBytes)
        }
        let buffer = try await request.body.collect(upTo: maxBodyBytes)
        do {
            return try JSONValue.parseStrict(Data(buffer: buffer))
        } catch {
            throw APIError.invalid(error.message, field: error.field)
        }
    }

    /// The idempotency fingerprint: a digest of the body's JSON content, not of its spelling.
    static func fingerprint(of json: JSONValue) -> String {
        SHA256.hash(data: Data(json.canonicalText.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
