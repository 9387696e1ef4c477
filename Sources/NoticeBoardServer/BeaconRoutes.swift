import Hummingbird
import NoticeBoardCore

/// `GET /api/v1/beacons/{uuid}/{major}/{minor}` (public) and the moderators' `PUT`/`DELETE`.
struct BeaconRoutes: Sendable {
    let store: any BeaconStore
    let moderation: ModerationRoutes

    func register(on router: Router<AppRequestContext>, table: RouteTable) {
        table.on(router, .get, "/api/v1/beacons/{uuid}/{major}/{minor}", use: show)
        table.on(router, .get, "/api/v1/moderation/beacons", use: list)
        table.on(router, .put, "/api/v1/moderation/beacons/{uuid}/{major}/{minor}", use: put)
        table.on(router, .delete, "/api/v1/moderation/beacons/{uuid}/{major}/{minor}", use: delete)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let beacon = try await store.beacon(try Self.reference(context)) else { throw APIError.notFound("no such beacon") }
        return JSONResponse.make(BeaconJSON(beacon))
    }

    /// `{"beacons": [...]}`: the registry for the moderation page (an extension of the contract).
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try await moderation.moderator(request)
        return JSONResponse.make(["beacons": try await store.all().map(BeaconJSON.init)])
    }

    @Sendable func put(_ request: Request, context: AppRequestContext) async throws -> Response {
        let actor = try await moderation.moderator(request)
        let beacon = try Beacon(reference: try Self.reference(context), json: try await PostRoutes.jsonBody(of: request))
        let created = try await store.put(beacon, actor: actor)
        return JSONResponse.make(status: created ? .created : .ok, BeaconJSON(beacon))
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let actor = try await moderation.moderator(request)
        guard try await store.delete(try Self.reference(context), actor: actor) else { throw APIError.notFound("no such beacon") }
        return Response(status: .noContent)
    }

    static func reference(_ context: AppRequestContext) throws(ValidationError) -> BeaconReference {
        try BeaconReference(
            uuid: context.parameters.get("uuid") ?? "", major: context.parameters.get("major") ?? "",
            minor: context.parameters.get("minor") ?? "")
    }
}

/// `{"uuid", "major", "minor", "lat", "lon", "floor", "name"}`.
struct BeaconJSON: Encodable {
    var beacon: Beacon

    init(_ beacon: Beacon) { self.beacon = beacon }

    enum CodingKeys: String, CodingKey { case uuid, major, minor, lat, lon, floor, name }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(beacon.reference.uuid, forKey: .uuid)
        try container.encode(beacon.reference.major, forKey: .major)
        try container.encode(beacon.reference.minor, forKey: .minor)
        try container.encode(beacon.lat, forKey: .lat)
        try container.encode(beacon.lon, forKey: .lon)
        try container.encode(beacon.floor, forKey: .floor)
        try container.encode(beacon.name, forKey: .name)
    }
}
