import GeoIndex

/// One position update on `GET /api/v1/walk`, validated like a nearby query:
/// `{"lat", "lon", "heading"?, "tolerance"?, "accuracy"?, "radius"? (≤ 500), "facing"?, "fov"?, "tag"?: [...]}`.
public struct WalkUpdate: Sendable, Equatable {
    public static let maxRadius = 500.0

    public var lat: Double
    public var lon: Double
    public var radius: Double
    /// With `facing`: notes in the field of view (and within `accuracy`) only.
    public var cone: NearbySearch.ViewCone?
    /// With `heading`: notes whose poster faced within `tolerance` of it (notes without a heading pass).
    public var headingFilter: NearbySearch.HeadingFilter?
    public var tags: [String]

    public init(json: JSONValue) throws(ValidationError) {
        guard case .object(let members) = json else { throw ValidationError(field: nil, "an update must be a JSON object") }
        let fields = JSONFields(members)
        lat = try fields.requiredNumber("lat", in: -90...90)
        lon = try fields.requiredNumber("lon", in: -180...180)
        radius = try fields.optionalNumber("radius", in: 1...Self.maxRadius) ?? 100
        let accuracy = try fields.optionalNumber("accuracy", in: 0...1000) ?? 0
        let fov = try fields.optionalNumber("fov", in: 0...360) ?? 60
        guard fov > 0 else { throw ValidationError(field: "fov", "must be greater than 0 and at most 360") }
        cone = try fields.optionalNumber("facing", in: 0..<360).map { NearbySearch.ViewCone(facing: $0, fov: fov, accuracy: accuracy) }
        let tolerance = try fields.optionalNumber("tolerance", in: 0...180) ?? 45
        headingFilter = try fields.optionalNumber("heading", in: 0..<360).map { NearbySearch.HeadingFilter(heading: $0, tolerance: tolerance) }
        switch members["tag"] {
        case nil, .null?: tags = []
        case .array(let items)?:
            guard items.count <= 20 else { throw ValidationError(field: "tag", "may name at most 20 tags") }
            var names: [String] = []
            for item in items {
                guard case .string(let text) = item else { throw ValidationError(field: "tag", "must be an array of tags") }
                names.append(try TextRules.normalizedTag(text))
            }
            tags = names
        case .string(let text)?: tags = [try TextRules.normalizedTag(text)]
        default: throw ValidationError(field: "tag", "must be an array of tags")
        }
    }
}

/// What a walker is told: a note came into view (with its distance and bearing), or left it.
public enum WalkMessage: Sendable, Equatable {
    case enter(NearbyPost)
    case leave(id: Int64)
}

/// The notes a walker has been told are in view; each new view is told as its difference.
public struct WalkSession: Sendable {
    /// The nearest notes a walker holds at a time.
    public static let viewLimit = 200

    public private(set) var shown: Set<Int64> = []
    public private(set) var position: WalkUpdate?

    public init() {}

    /// The messages that bring the walker from what it was shown to `view` (nearest first):
    /// leaves first, then enters in the view's order.
    public mutating func show(_ view: [NearbyPost], at update: WalkUpdate) -> [WalkMessage] {
        position = update
        let now = Set(view.map(\.post.id))
        var messages = shown.subtracting(now).sorted().map { WalkMessage.leave(id: $0) }
        messages += view.filter { !shown.contains($0.post.id) }.map(WalkMessage.enter)
        shown = now
        return messages
    }

    /// Whether a change at this position may alter the view: within the radius of the walker, or
    /// a note it holds.
    public func mayConcern(lat: Double, lon: Double, id: Int64) -> Bool {
        guard let position else { return false }
        if shown.contains(id) { return true }
        return Geodesy.distance(lat1: position.lat, lon1: position.lon, lat2: lat, lon2: lon) <= position.radius
    }
}
