import Hummingbird
import Metrics
import NoticeBoardCore

/// Places: the public list, one place and its announcements; moderators' `PUT`, `DELETE` and
/// announcements.
struct PlaceRoutes: Sendable {
    let board: Board

    func register(on routes: Routes<some RouterMethods<AppRequestContext>>, moderation: Routes<some RouterMethods<AppRequestContext>>) {
        routes.on(.get, "/api/v1/places", use: list)
        routes.on(.get, "/api/v1/places/{slug}", use: show)
        routes.on(.get, "/api/v1/places/{slug}/announcements", use: announcements)
        moderation.on(.put, "/places/{slug}", use: put)
        moderation.on(.delete, "/places/{slug}", use: delete)
        moderation.on(.post, "/places/{slug}/announcements", use: announce)
        moderation.on(.delete, "/announcements/{id}", use: deleteAnnouncement)
    }

    /// `?bbox=&limit=&cursor=`, and as an extension `lat`, `lon` (and `floor`): the places
    /// holding that point, which is how the page says where you are.
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        try board.requireLoaded()
        let parameters = QueryParameters(urlQuery: request.uri.query)
        let box = try parameters.box()
        let limit = try parameters.limit()
        let lat = try parameters.number("lat", in: -90...90), lon = try parameters.number("lon", in: -180...180)
        let floor = try parameters.integer("floor", in: -20...200)
        if lat != nil, lon == nil { throw ValidationError(field: "lon", "is required with lat") }
        if lon != nil, lat == nil { throw ValidationError(field: "lat", "is required with lon") }
        let after = try parameters.first("cursor").map { text throws(ValidationError) in try Place.validatedSlug(text, field: "cursor") }
        let point = lat.flatMap { lat in lon.map { (lat: lat, lon: $0, floor: floor) } }
        let page = board.places(meeting: box, holding: point, after: after, limit: limit)
        return JSONResponse.make(PlaceListJSON(places: page.items.map { PlaceJSON(place: $0, postCount: board.postCount(in: $0)) }, nextCursor: page.nextCursor))
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let place = try found(context)
        return JSONResponse.make(PlaceJSON(place: place, postCount: board.postCount(in: place)))
    }

    @Sendable func announcements(_ request: Request, context: AppRequestContext) async throws -> Response {
        try board.requireLoaded()
        guard let list = board.announcements(of: context.parameters.get("slug") ?? "") else { throw APIError.notFound("no such place") }
        return JSONResponse.make(["announcements": list.map(AnnouncementJSON.init)])
    }

    @Sendable func put(_ request: Request, context: AppRequestContext) async throws -> Response {
        let moderator = try context.moderator()
        let place = try Place(slug: context.parameters.get("slug") ?? "", json: try await JSONBody.read(request, maxBytes: JSONBody.placeMaxBytes))
        let created = try await board.putPlace(place, by: moderator.name)
        Counter(label: "noticeboard_place_changes_total", dimensions: [("action", "put")]).increment()
        return JSONResponse.make(status: created ? .created : .ok, PlaceJSON(place: place, postCount: board.postCount(in: place)))
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let moderator = try context.moderator()
        let slug = try Place.validatedSlug(context.parameters.get("slug") ?? "", field: "slug")
        guard try await board.deletePlace(slug: slug, by: moderator.name) else { throw APIError.notFound("no such place") }
        Counter(label: "noticeboard_place_changes_total", dimensions: [("action", "delete")]).increment()
        return Response(status: .noContent)
    }

    @Sendable func announce(_ request: Request, context: AppRequestContext) async throws -> Response {
        let moderator = try context.moderator()
        let slug = try Place.validatedSlug(context.parameters.get("slug") ?? "", field: "slug")
        let draft = try AnnouncementDraft(json: try await JSONBody.read(request), now: Timestamp.nowMilliseconds())
        guard let announcement = try await board.announce(draft, in: slug, by: moderator.name) else { throw APIError.notFound("no such place") }
        Counter(label: "noticeboard_announcement_changes_total", dimensions: [("action", "post")]).increment()
        return JSONResponse.make(status: .created, AnnouncementJSON(announcement: announcement))
    }

    @Sendable func deleteAnnouncement(_ request: Request, context: AppRequestContext) async throws -> Response {
        let moderator = try context.moderator()
        let id = try context.pathID(naming: "announcement")
        guard try await board.deleteAnnouncement(id: id, by: moderator.name) else { throw APIError.notFound("no such announcement") }
        Counter(label: "noticeboard_announcement_changes_total", dimensions: [("action", "delete")]).increment()
        return Response(status: .noContent)
    }

    private func found(_ context: AppRequestContext) throws -> Place {
        try board.requireLoaded()
        guard let place = board.place(slug: context.parameters.get("slug") ?? "") else { throw APIError.notFound("no such place") }
        return place
    }
}

struct PlaceListJSON: Encodable {
    var places: [PlaceJSON]
    var nextCursor: String?

    enum CodingKeys: String, CodingKey { case places, nextCursor }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(places, forKey: .places)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}
