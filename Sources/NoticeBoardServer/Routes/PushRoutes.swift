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
        guard let outbox else { throw APIError.unavailable("push needs the database") }
        return outbox
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
        if case .refused(let reason) = await outbox.policy.check(draft.endpoint) {
            throw APIError.invalid("the endpoint \(reason)", field: "subscription.endpoint")
        }
        if case .place(let slug)? = draft.area, outbox.board.places.places[slug] == nil {
            throw APIError.invalid("no place has the slug \(slug)", field: "area.place")
        }
        let subscription = try await outbox.store.createSubscription(draft, deviceHash: device)
        return JSONResponse.make(status: .created, ["id": subscription.id])
    }

    @Sendable func unsubscribe(_ request: Request, context: AppRequestContext) async throws -> Response {
        let outbox = try required()
        let id = try ReactionRoutes.id(context, "subscription")
        let device = try identity.requiredDeviceHash(of: request)
        switch try await outbox.store.deleteSubscription(id: id, deviceHash: device) {
        case .deleted: return Response(status: .noContent)
        case .notFound: throw APIError.notFound("no such subscription")
        case .notYours: throw APIError(.forbidden, code: "forbidden", message: "this subscription was made with another device key")
        }
    }
}
