import Hummingbird
import NoticeBoardCore

/// `GET /api/v1/beacons/{uuid}/{major}/{minor}` (public) and the moderators' list, `PUT` and `DELETE`.
struct BeaconRoutes: Sendable {
    let board: Board

    func register(on routes: Routes<some RouterMethods<AppRequestContext>>, moderation: Routes<some RouterMethods<AppRequestContext>>) {
        routes.on(.get, "/api/v1/beacons/{uuid}/{major}/{minor}", use: show)
        moderation.on(.get, "/beacons", use: list)
        moderation.on(.put, "/beacons/{uuid}/{major}/{minor}", use: put)
        moderation.on(.delete, "/beacons/{uuid}/{major}/{minor}", use: delete)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let beacon = try await board.beacon(try Self.reference(context)) else { throw APIError.notFound("no such beacon") }
        return JSONResponse.make(BeaconJSON(beacon))
    }

    /// `{"beacons": [...]}`: the registry for the moderation page (an extension of the contract).
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        JSONResponse.make(["beacons": try await board.allBeacons().map(BeaconJSON.init)])
    }

    @Sendable func put(_ request: Request, context: AppRequestContext) async throws -> Response {
        let moderator = try context.moderator()
        let beacon = try Beacon(reference: try Self.reference(context), json: try await JSONBody.read(request))
        let created = try await board.register(beacon, by: moderator.name)
        return JSONResponse.make(status: created ? .created : .ok, BeaconJSON(beacon))
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let moderator = try context.moderator()
        guard try await board.unregister(try Self.reference(context), by: moderator.name) else { throw APIError.notFound("no such beacon") }
        return Response(status: .noContent)
    }

    static func reference(_ context: AppRequestContext) throws(ValidationError) -> BeaconReference {
        try BeaconReference(
            uuid: context.parameters.get("uuid") ?? "", major: context.parameters.get("major") ?? "",
            minor: context.parameters.get("minor") ?? "")
    }
}
