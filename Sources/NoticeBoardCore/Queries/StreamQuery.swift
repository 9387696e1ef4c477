import GeoIndex

/// `GET /api/v1/posts/stream`, validated like nearby: a circle (`lat`, `lon`, `radius`) or a
/// box (`bbox`), and tags.
public struct StreamQuery: Sendable {
    public enum Area: Sendable, Equatable {
        case circle(lat: Double, lon: Double, radius: Double)
        case box(GeoBox)
    }

    public var area: Area
    public var tags: Set<String>

    public init(_ parameters: QueryParameters) throws(ValidationError) {
        let lat = try parameters.number("lat", in: -90...90)
        let lon = try parameters.number("lon", in: -180...180)
        let radius = try parameters.number("radius", in: 1...50_000) ?? 100
        if let box = try parameters.box() {
            area = .box(box)
        } else {
            guard let lat else { throw ValidationError(field: "lat", "is required (or give bbox)") }
            guard let lon else { throw ValidationError(field: "lon", "is required (or give bbox)") }
            area = .circle(lat: lat, lon: lon, radius: radius)
        }
        tags = Set(try parameters.tags())
    }

    /// Whether an event concerns this stream; for a circle, with the post's distance and bearing.
    public func matches(lat: Double, lon: Double, tag: String?) -> (distance: Double, bearing: Double)?? {
        if let tag, !tags.isEmpty, !tags.contains(tag) { return nil }
        switch area {
        case .box(let box):
            return box.contains(lat: lat, lon: lon) ? .some(nil) : nil
        case .circle(let centreLat, let centreLon, let radius):
            let distance = Geodesy.distance(lat1: centreLat, lon1: centreLon, lat2: lat, lon2: lon)
            guard distance <= radius else { return nil }
            return .some((distance, Geodesy.bearing(lat1: centreLat, lon1: centreLon, lat2: lat, lon2: lon)))
        }
    }
}
