import GeoIndex

/// Where a webhook or a push subscription listens: a circle, a box or a place.
public enum DeliveryArea: Sendable, Equatable {
    case circle(lat: Double, lon: Double, radius: Double)
    case box(GeoBox)
    case place(String)

    /// `{"lat","lon","radius"}`, `{"bbox": "W,S,E,N"}` (or four numbers) or `{"place": slug}`;
    /// errors name `area.<member>`.
    public init(json: JSONValue?, maxRadius: Double) throws(ValidationError) {
        guard case .object(let members)? = json else { throw ValidationError(field: "area", "is required: {lat, lon, radius}, {bbox} or {place}") }
        let fields = JSONFields(members)
        let kinds = [fields.isPresent("radius") || fields.isPresent("lat") || fields.isPresent("lon"), fields.isPresent("bbox"), fields.isPresent("place")]
        guard kinds.filter({ $0 }).count == 1 else {
            throw ValidationError(field: "area", "must be exactly one of {lat, lon, radius}, {bbox} or {place}")
        }
        let known: Set<String> = kinds[2] ? ["place"] : kinds[1] ? ["bbox"] : ["lat", "lon", "radius"]
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw ValidationError(field: "area.\(unknown)", "is not part of this kind of area")
        }
        if kinds[2] {
            guard let slug = try? fields.requiredString("place") else { throw ValidationError(field: "area.place", "must be a place's slug") }
            self = .place(try Place.validatedSlug(slug, field: "area.place"))
        } else if kinds[1] {
            self = .box(try Self.box(members["bbox"]))
        } else {
            do {
                self = .circle(
                    lat: try fields.requiredNumber("lat", in: -90...90), lon: try fields.requiredNumber("lon", in: -180...180),
                    radius: try fields.requiredNumber("radius", in: 1...maxRadius))
            } catch {
                throw ValidationError(field: error.field.map { "area.\($0)" }, error.message)
            }
        }
    }

    private static func box(_ value: JSONValue?) throws(ValidationError) -> GeoBox {
        let text: String
        switch value {
        case .string(let string)?: text = string
        case .array(let items)? where items.count == 4:
            var numbers: [String] = []
            for item in items {
                guard case .number(let number) = item else { throw ValidationError(field: "area.bbox", "must be four numbers west,south,east,north") }
                numbers.append("\(number)")
            }
            text = numbers.joined(separator: ",")
        default: throw ValidationError(field: "area.bbox", "must be four numbers west,south,east,north")
        }
        guard let box = try QueryParameters([("area.bbox", text)]).box("area.bbox") else {
            throw ValidationError(field: "area.bbox", "is required")
        }
        return box
    }

    /// Whether a post at this position lies in the area; a place is looked up in `places`
    /// (an area whose place no longer exists matches nothing).
    public func contains(lat: Double, lon: Double, floor: Int?, places: PlaceDirectory) -> Bool {
        switch self {
        case .circle(let centreLat, let centreLon, let radius):
            return Geodesy.distance(lat1: centreLat, lon1: centreLon, lat2: lat, lon2: lon) <= radius
        case .box(let box):
            return box.contains(lat: lat, lon: lon)
        case .place(let slug):
            return places.places[slug].map { $0.contains(lat: lat, lon: lon, floor: floor) } ?? false
        }
    }

    /// Stored and answered as JSON: `{"lat","lon","radius"}`, `{"bbox": [W,S,E,N]}`, `{"place"}`.
    public var json: JSONValue {
        switch self {
        case .circle(let lat, let lon, let radius): .object(["lat": .number(lat), "lon": .number(lon), "radius": .number(radius)])
        case .box(let box): .object(["bbox": .array([box.west, box.south, box.east, box.north].map { .number($0) })])
        case .place(let slug): .object(["place": .string(slug)])
        }
    }
}

/// Tags a webhook or subscription listens to: `tags` absent or empty means every tag.
enum DeliveryTags {
    static func parse(_ value: JSONValue?) throws(ValidationError) -> [String] {
        switch value {
        case nil, .null?: return []
        case .array(let items)?:
            guard items.count <= 20 else { throw ValidationError(field: "tags", "must list at most 20 tags") }
            var tags: [String] = []
            for item in items {
                guard case .string(let raw) = item else { throw ValidationError(field: "tags", "must be an array of strings") }
                let tag = try TextRules.normalizedTag(raw, field: "tags")
                if !tags.contains(tag) { tags.append(tag) }
            }
            return tags
        default: throw ValidationError(field: "tags", "must be an array of strings")
        }
    }
}
