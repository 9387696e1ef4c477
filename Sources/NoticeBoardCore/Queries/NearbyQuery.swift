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
    /// The board as it stood then (`asOf`, or the popular cursor's instant), or now.
    public var instant: BoardInstant

    public init(_ parameters: QueryParameters, now: Int64 = Timestamp.nowMilliseconds()) throws(ValidationError) {
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
        instant = try parameters.asOf(now: now)
        let cursor = try parameters.first("cursor").map { text throws(ValidationError) in try PageCursor(decoding: text) }
        switch parameters.first("order") {
        case nil, "distance"?: order = .distance
        case "newest"?: order = .newest
        case "popular"?:
            // Later pages are scored at the first page's instant, so the order holds still.
            if case .popular(_, _, let scoredAt)? = cursor { instant = BoardInstant(milliseconds: scoredAt, limitsCreation: true) }
            order = .popular(at: instant.milliseconds)
        default: throw ValidationError(field: "order", "must be distance, newest or popular")
        }
        limit = try parameters.limit()
        place = try parameters.place()
        after = try cursor?.nearbyPosition(for: order)
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
    public var instant: BoardInstant
    /// Newest first unless `order=popular`.
    public var popular = false
    public var popularAfter: (score: Double, id: Int64)?

    public init(_ parameters: QueryParameters, now: Int64 = Timestamp.nowMilliseconds()) throws(ValidationError) {
        box = try parameters.box() ?? .world
        place = try parameters.place()
        tags = try parameters.tags()
        (from, to) = try parameters.timeRange()
        limit = try parameters.limit()
        instant = try parameters.asOf(now: now)
        switch parameters.first("order") {
        case nil, "newest"?: popular = false
        case "popular"?: popular = true
        default: throw ValidationError(field: "order", "must be newest or popular")
        }
        if let text = parameters.first("cursor") {
            switch (try PageCursor(decoding: text), popular) {
            case (.time(let createdAt, let id), false):
                after = (createdAt, id)
            case (.popular(let score, let id, let scoredAt), true):
                popularAfter = (score, id)
                instant = BoardInstant(milliseconds: scoredAt, limitsCreation: true)
            default:
                throw ValidationError(field: "cursor", "belongs to a different endpoint or order")
            }
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
    public var instant: BoardInstant

    public init(_ parameters: QueryParameters, now: Int64 = Timestamp.nowMilliseconds()) throws(ValidationError) {
        box = try parameters.box() ?? .world
        place = try parameters.place()
        instant = try parameters.asOf(now: now)
        guard let zoom = try parameters.integer("zoom", in: 0...22) else { throw ValidationError(field: "zoom", "is required (0 to 22)") }
        self.zoom = zoom
        tags = try parameters.tags()
        (from, to) = try parameters.timeRange()
    }
}

/// `GET /api/v1/tags`, validated.
public struct TagsQuery: Sendable {
    /// A circle (`lat`, `lon`, `radius`, as nearby has it): the tags of the notes a nearby list shows.
    public struct Circle: Sendable, Equatable {
        public var lat: Double
        public var lon: Double
        public var radius: Double
    }

    public var box: GeoBox
    /// When set, only posts within it count; `box` is then the smallest box around it.
    public var circle: Circle?
    public var from: Int64?
    public var to: Int64?
    public var place: String?
    public var instant: BoardInstant

    public init(_ parameters: QueryParameters, now: Int64 = Timestamp.nowMilliseconds()) throws(ValidationError) {
        let lat = try parameters.number("lat", in: -90...90)
        let lon = try parameters.number("lon", in: -180...180)
        let radius = try parameters.number("radius", in: 1...50_000)
        let bbox = try parameters.box()
        if lat != nil || lon != nil || radius != nil {
            guard bbox == nil else { throw ValidationError(field: "bbox", "cannot be given with lat, lon and radius") }
            guard let lat else { throw ValidationError(field: "lat", "is required with lon and radius") }
            guard let lon else { throw ValidationError(field: "lon", "is required with lat and radius") }
            let circle = Circle(lat: lat, lon: lon, radius: radius ?? 100)
            self.circle = circle
            box = AreaGrid.box(aroundCircle: lat, lon: lon, radius: circle.radius)
        } else {
            box = bbox ?? .world
        }
        (from, to) = try parameters.timeRange()
        place = try parameters.place()
        instant = try parameters.asOf(now: now)
    }
}

/// A page of results and the cursor of the next page, `nil` on the last one.
public struct Page<Item: Sendable>: Sendable {
    public var items: [Item]
    public var nextCursor: String?
    /// The instant a popular page was scored at.
    public var asOf: Int64?

    public init(items: [Item], nextCursor: String?, asOf: Int64? = nil) {
        self.items = items
        self.nextCursor = nextCursor
        self.asOf = asOf
    }
}

/// Where a page written post by post ends: the next page's cursor (`nil` on the last page)
/// and the instant a popular page was scored at.
public struct PageEnd: Sendable, Equatable {
    public var nextCursor: String?
    public var asOf: Int64?

    public init(nextCursor: String?, asOf: Int64?) {
        (self.nextCursor, self.asOf) = (nextCursor, asOf)
    }
}

/// A post found near the viewer.
public struct NearbyPost: Sendable, Equatable {
    public var post: Post
    public var distance: Double
    public var bearing: Double

    public init(post: Post, distance: Double, bearing: Double) {
        (self.post, self.distance, self.bearing) = (post, distance, bearing)
    }
}

public struct TagCount: Sendable, Equatable {
    public var tag: String
    public var count: Int
}
