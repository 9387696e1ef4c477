/// Places from a GeoJSON FeatureCollection of Polygons: each feature's `properties` carry
/// `slug`, `name` and optionally `floors` and `description`; its outer ring is the polygon.
/// Features are validated like the API's body; bad ones are reported by index.
public enum PlaceFeatures {
    public struct Problem: Sendable, Equatable {
        /// The feature's position in `features`, from 0.
        public var index: Int
        public var error: ValidationError
    }

    public static func places(from document: JSONValue) throws(ValidationError) -> (places: [Place], problems: [Problem]) {
        guard case .object(let collection) = document, collection["type"] == .string("FeatureCollection"),
            case .array(let features)? = collection["features"]
        else { throw ValidationError(field: nil, "the file must be a GeoJSON FeatureCollection") }
        var places: [Place] = []
        var problems: [Problem] = []
        var seen = Set<String>()
        for (index, feature) in features.enumerated() {
            do throws(ValidationError) {
                let place = try Self.place(from: feature)
                guard seen.insert(place.slug).inserted else { throw ValidationError(field: "slug", "repeats an earlier feature's slug") }
                places.append(place)
            } catch {
                problems.append(Problem(index: index, error: error))
            }
        }
        return (places, problems)
    }

    static func place(from feature: JSONValue) throws(ValidationError) -> Place {
        guard case .object(let members) = feature, members["type"] == .string("Feature") else {
            throw ValidationError(field: nil, "must be a GeoJSON Feature")
        }
        guard case .object(let geometry)? = members["geometry"], geometry["type"] == .string("Polygon"),
            case .array(let rings)? = geometry["coordinates"], let outer = rings.first
        else { throw ValidationError(field: "geometry", "must be a Polygon") }
        guard rings.count == 1 else { throw ValidationError(field: "geometry", "must not have holes") }
        guard case .object(let properties)? = members["properties"] else { throw ValidationError(field: "properties", "must hold slug and name") }
        guard case .string(let slug)? = properties["slug"] else { throw ValidationError(field: "slug", "is required") }
        var body = properties
        body["polygon"] = Self.withoutAltitudes(outer)
        body["slug"] = nil
        return try Place(slug: slug, json: .object(body))
    }

    /// RFC 7946 positions may carry an altitude after longitude and latitude; a place is drawn
    /// on the ground, so the third number is dropped (anything else is left for validation).
    static func withoutAltitudes(_ ring: JSONValue) -> JSONValue {
        guard case .array(let positions) = ring else { return ring }
        return .array(positions.map { position in
            guard case .array(let numbers) = position, numbers.count == 3, case .number = numbers[2] else { return position }
            return .array(Array(numbers.prefix(2)))
        })
    }
}
