import GeoIndex

/// `GET /api/v1/posts/stream`, validated like nearby: a circle (`lat`, `lon`, `radius`) or a
/// box (`bbox`) or a place (`place`, alone or with either), and tags.
public struct StreamQuery: Sendable {
    public enum Area: Sendable, Equatable {
        case circle(lat: Double, lon: Double, radius: Double)
        case box(GeoBox)
    }

    /// `nil` when only a place bounds the stream.
    public var area: Area?
    public var tags: Set<String>
    /// The place's slug, and the place itself once the board has resolved it.
    public var place: String?
    public var resolvedPlace: Place?

    public init(_ parameters: QueryParameters) throws(ValidationError) {
        let lat = try parameters.number("lat", in: -90...90)
        let lon = try parameters.number("lon", in: -180...180)
        let radius = try parameters.number("radius", in: 1...50_000) ?? 100
        place = try parameters.place()
        if let box = try parameters.box() {
            area = .box(box)
        } else if place != nil, lat == nil, lon == nil {
            area = nil
        } else {
            guard let lat else { throw ValidationError(field: "lat", "is required (or give bbox or place)") }
            guard let lon else { throw ValidationError(field: "lon", "is required (or give bbox or place)") }
            area = .circle(lat: lat, lon: lon, radius: radius)
        }
        tags = Set(try parameters.tags())
    }

    /// Whether an event concerns this stream; for a circle, with the post's distance and bearing.
    /// A removal carries no floor: it is matched by position alone.
    public func matches(lat: Double, lon: Double, tag: String?, floor: Int?? = nil) -> (distance: Double, bearing: Double)?? {
        if let tag, !tags.isEmpty, !tags.contains(tag) { return nil }
        if let resolvedPlace {
            if let floor {
                guard resolvedPlace.contains(lat: lat, lon: lon, floor: floor) else { return nil }
            } else {
                guard resolvedPlace.shape.contains(lat: lat, lon: lon) else { return nil }
            }
        }
        switch area {
        case nil:
            return .some(nil)
        case .box(let box):
            return box.contains(lat: lat, lon: lon) ? .some(nil) : nil
        case .circle(let centreLat, let centreLon, let radius):
            let distance = Geodesy.distance(lat1: centreLat, lon1: centreLon, lat2: lat, lon2: lon)
            guard distance <= radius else { return nil }
            return .some((distance, Geodesy.bearing(lat1: centreLat, lon1: centreLon, lat2: lat, lon2: lon)))
        }
    }
}

extension StreamQuery {
    /// The feed cells to listen in: the area's, or the place's box when only a place is named.
    public var cells: Set<StreamCells.Cell>? {
        if let area { return StreamCells.cells(for: area) }
        return resolvedPlace.map { StreamCells.cells(for: .box($0.shape.box)) } ?? nil
    }
}
