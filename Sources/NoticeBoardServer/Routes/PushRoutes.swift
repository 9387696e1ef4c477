import Hummingbird
import NoticeBoardCore

/// Web Push: the server's public key, and devices subscribing to an area and unsubscribing.
struct PushRoutes: Sendable {
    let outbox: OutboxServices?
    let identity: ClientIdentity
    let limiter: RateLimiter

    func register(on routes: Routes<some RouterMethods<AppRequestContext>>) {
        routes.on(.get, "/api/v1/push/key", use: key)
        routes.on(.post, "/api/v1/push/subscriptions", use: subscribe)
        routes.on(.delete, "/api/v1/push/subscriptions/{id}", use: unsubscribe)
    }

    func required() throws -> OutboxServices {
        try OutboxServices.required(outbox, "push needs")
    }

    @Sendable func key(_ request: Request, context: AppRequestContext) async throws -> Response {
        JSONResponse.make(["publicKey": try await required().vapid().publicKey])
    }

    @Sendable func subscribe(_ request: Request, context: AppRequestContext) async throws -> Response {
        let outbox = try required()
        try outbox.board.requireLoaded()
        let device = try identity.requiredDeviceHash(of: request)
        let draft = try PushSubscriptionDraft(json: try await JSONBody.read(request))
        guard WebPushEncryption.isValidKey(draft.p256dh) else {
            throw APIError.invalid("is not a point on the P-256 curve", field: "subscription.keys.p256dh")
        }
        // The rate limit comes before the endpoint's name is looked up: lookups cost a thread each.
        let client = identity.address(of: request, context: context)
        if case .limited(let retryAfter) = limiter.reserve(for: client) { throw APIError.rateLimited(retryAfterSeconds: retryAfter) }
        let subscription = try await outbox.subscribe(draft, deviceHash: device)
        return JSONResponse.make(status: .created, ["id": subscription.id])
    }

    @Sendable func unsubscribe(_ request: Request, context: AppRequestContext) async throws -> Response {
        let outbox = try required()
        let id = try context.pathID(naming: "subscription")
        let device = try identity.requiredDeviceHash(of: request)
        try await outbox.unsubscribe(id: id, deviceHash: device)
        return Response(status: .noContent)
    }
}
