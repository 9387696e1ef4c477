import Hummingbird
import NoticeBoardCore

/// Moderators' webhooks: create, list, delete, and each one's delivery history.
struct WebhookRoutes: Sendable {
    static let maxWebhooks = 1000

    let outbox: OutboxServices?

    func register(on moderation: Routes<some RouterMethods<AppRequestContext>>) {
        moderation.on(.post, "/webhooks", use: create)
        moderation.on(.get, "/webhooks", use: list)
        moderation.on(.delete, "/webhooks/{id}", use: delete)
        moderation.on(.get, "/webhooks/{id}/deliveries", use: deliveries)
    }

    func required() throws -> OutboxServices {
        guard let outbox else { throw APIError.unavailable("webhooks need the database") }
        return outbox
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let moderator = try context.moderator()
        let outbox = try required()
        let draft = try WebhookDraft(json: try await JSONBody.read(request))
        if case .refused(let reason) = await outbox.policy.check(draft.url) { throw APIError.invalid("url \(reason)", field: "url") }
        if case .place(let slug) = draft.area, outbox.board.places.places[slug] == nil {
            throw APIError.invalid("no place has the slug \(slug)", field: "area.place")
        }
        guard try await outbox.store.webhooks().count < Self.maxWebhooks else {
            throw APIError(.conflict, code: "limit_reached", message: "at most \(Self.maxWebhooks) webhooks; delete some first")
        }
        let webhook = try await outbox.store.createWebhook(draft, by: moderator.name)
        return JSONResponse.make(status: .created, WebhookJSON(webhook: webhook))
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.moderator()
        let hooks = try await required().store.webhooks()
        return JSONResponse.make(["webhooks": hooks.map(WebhookJSON.init)])
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.moderator()
        let id = try ReactionRoutes.id(context, "webhook")
        guard try await required().store.deleteWebhook(id: id) else { throw APIError.notFound("no such webhook") }
        return Response(status: .noContent)
    }

    @Sendable func deliveries(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try context.moderator()
        let id = try ReactionRoutes.id(context, "webhook")
        let parameters = QueryParameters(urlQuery: request.uri.query)
        let limit = try parameters.limit()
        var before: Int64?
        if let text = parameters.first("cursor") {
            guard case .time(_, let sequence) = try PageCursor(decoding: text) else { throw APIError.invalid("not a deliveries cursor", field: "cursor") }
            before = sequence
        }
        guard let records = try await required().store.deliveries(webhookId: id, limit: limit + 1, before: before) else {
            throw APIError.notFound("no such webhook")
        }
        let page = Array(records.prefix(limit))
        let next = records.count > limit ? page.last.map { PageCursor.time(createdAt: $0.createdAt, id: $0.sequence).encoded } : nil
        return JSONResponse.make(PageJSON(itemsKey: "deliveries", items: page.map(DeliveryJSON.init), nextCursor: next))
    }
}
