import GeoIndex

/// `GET /api/v1/posts/nearby`, validated.
public struct NearbyQuery: Sendable {
    public enum Center: Sendable, Equatable {
        case coordinates(lat: Double, lon: Double)
        case beacon(BeaconReference)
    }

    public var center: Center
    public var radius: Double
    public var cone: NearbySearch.ViewCone?
    public var headingFilter: NearbySearch.HeadingFilter?
    public var tags: [String]
    public var from: Int64?
    public var to: Int64?
    public var floor: Int?
    public var order: NearbySearch.Order
    public var limit: Int
    public var after: NearbyPosition?
    /// A place's slug: only posts inside it.
    public var place: String?

    public init(_ parameters: QueryParameters) throws(ValidationError) {
        // Every parameter is validated even where it has no effect (`fov` without `facing`).
        let lat = try parameters.number("lat", in: -90...90)
        let lon = try parameters.number("lon", in: -180...180)
        if let beacon = parameters.first("beacon") {
            center = .beacon(try BeaconReference(parsing: beacon))
        } else {
            guard let lat else { throw ValidationError(field: "lat", "is required (or give beacon)") }
            guard let lon else { throw ValidationError(field: "lon", "is required (or give beacon)") }
            center = .coordinates(lat: lat, lon: lon)
        }
        radius = try parameters.number("radius", in: 1...50_000) ?? 100
        let facing = try parameters.angle("facing")
        let fov = try parameters.number("fov", in: 0...360) ?? 60
        guard fov > 0 else { throw ValidationError(field: "fov", "must be greater than 0 and at most 360") }
        let accuracy = try parameters.number("accuracy", in: 0...1000) ?? 10
        cone = facing.map { NearbySearch.ViewCone(facing: $0, fov: fov, accuracy: accuracy) }
        let heading = try parameters.angle("heading")
        let tolerance = try parameters.number("tolerance", in: 0...180) ?? 45
        headingFilter = heading.map { NearbySearch.HeadingFilter(heading: $0, tolerance: tolerance) }
        tags = try parameters.tags()
        (from, to) = try parameters.timeRange()
        floor = try parameters.integer("floor", in: -20...200)
        switch parameters.first("order") {
        case nil, "distance"?: order = .distance
        case "newest"?: order = .newest
        default: throw ValidationError(field: "order", "must be distance or newest")
        }
        limit = try parameters.limit()
        place = try parameters.place()
        after = try parameters.first("cursor").map { text throws(ValidationError) in
            try PageCursor(decoding: text).nearbyPosition(for: order)
        }
    }
}

/// `GET /api/v1/posts` (browse by area and time), validated.
public struct BrowseQuery: Sendable {
    public var box: GeoBox
    public var tags: [String]
    public var from: Int64?
    public var to: Int64?
    public var limit: Int
    public var after: (createdAt: Int64, id: Int64)?
    public var place: String?

    public init(_ parameters: QueryParameters) throws(ValidationError) {
        box = try parameters.box() ?? .world
        place = try parameters.place()
        tags = try parameters.tags()
        (from, to) = try parameters.timeRange()
        limit = try parameters.limit()
        if let text = parameters.first("cursor") {
            guard case .time(let createdAt, let id) = try PageCursor(decoding: text) else {
                throw ValidationError(field: "cursor", "belongs to a different endpoint")
            }
            after = (createdAt, id)
        }
    }
}

/// `GET /api/v1/posts/clusters`, validated.
public struct ClustersQuery: Sendable {
    public var box: GeoBox
    public var zoom: Int
    public var tags: [String]
    public var from: Int64?
    public var to: Int64?
    public var place: String?

    public init(_ parameters: QueryParameters) throws(ValidationError) {
        box = try parameters.box() ?? .world
        place = try parameters.place()
        guard let zoom = try parameters.integer("zoom", in: 0...22) else { throw ValidationError(field: "zoom", "is required (0 to 22)") }
        self.zoom = zoom
        tags = try parameters.tags()
        (from, to) = try parameters.timeRange()
    }
}

/// `GET /api/v1/tags`, validated.
public struct TagsQuery: Sendable {
    public var box: GeoBox
    public var from: Int64?
    public var to: Int64?
    public var place: String?

    public init(_ parameters: QueryParameters) throws(ValidationError) {
        box = try parameters.box() ?? .world
        (from, to) = try parameters.timeRange()
        place = try parameters.place()
    }
}

/// A page of results and the cursor of the next page, `nil` on the last one.
public struct Page<Item: Sendable>: Sendable {
    public var items: [Item]
    public var nextCursor: String?

    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}

/// A post found near the viewer.
public struct NearbyPost: Sendable, Equatable {
    public var post: Post
    public var distance: Double
    public var bearing: Double
}

public struct TagCount: Sendable, Equatable {
    public var tag: String
    public var count: Int
}
