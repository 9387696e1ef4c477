import Hummingbird
import NoticeBoardCore

/// Moderators' webhooks: create, list, delete, and each one's delivery history; registered on
/// the moderation group, so a moderator is in the context of every request that reaches them.
struct WebhookRoutes: Sendable {
    let outbox: OutboxServices?

    func register(on moderation: Routes<some RouterMethods<AppRequestContext>>) {
        moderation.on(.post, "/webhooks", use: create)
        moderation.on(.get, "/webhooks", use: list)
        moderation.on(.delete, "/webhooks/{id}", use: delete)
        moderation.on(.get, "/webhooks/{id}/deliveries", use: deliveries)
    }

    func required() throws -> OutboxServices {
        try OutboxServices.required(outbox, "webhooks need")
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let moderator = try context.moderator()
        let outbox = try required()
        let draft = try WebhookDraft(json: try await JSONBody.read(request))
        let webhook = try await outbox.createWebhook(draft, by: moderator.name)
        return JSONResponse.make(status: .created, WebhookJSON(webhook: webhook))
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let hooks = try await required().webhooks()
        return JSONResponse.make(["webhooks": hooks.map(WebhookJSON.init)])
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.pathID(naming: "webhook")
        try await required().deleteWebhook(id: id)
        return Response(status: .noContent)
    }

    @Sendable func deliveries(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = try context.pathID(naming: "webhook")
        let parameters = QueryParameters(urlQuery: request.uri.query)
        let limit = try parameters.limit()
        var before: Int64?
        if let text = parameters.first("cursor") {
            guard case .time(_, let sequence) = try PageCursor(decoding: text) else { throw APIError.invalid("not a deliveries cursor", field: "cursor") }
            before = sequence
        }
        let records = try await required().deliveries(webhookId: id, limit: limit + 1, before: before)
        let page = Array(records.prefix(limit))
        let next = records.count > limit ? page.last.map { PageCursor.time(createdAt: $0.createdAt, id: $0.sequence).encoded } : nil
        return JSONResponse.make(PageJSON(itemsKey: "deliveries", items: page.map(DeliveryJSON.init), nextCursor: next))
    }
}
