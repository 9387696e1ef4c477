import GeoIndex

/// A named area moderators draw: a canteen, a hall, a campus. Posts inside its polygon (and
/// on its floors, when it has some) belong to it.
public struct Place: Sendable {
    public var slug: String
    public var name: String
    public var shape: PlaceShape
    public var floors: ClosedRange<Int>?
    public var description: String

    public init(slug: String, name: String, shape: PlaceShape, floors: ClosedRange<Int>?, description: String) {
        self.slug = slug
        self.name = name
        self.shape = shape
        self.floors = floors
        self.description = description
    }

    /// The polygon as stored: `[lon, lat]` pairs, each rounded to 1e-7°.
    public var polygon: [(lon: Double, lat: Double)] { shape.vertices }

    /// Whether a post at this position and floor belongs to the place.
    public func contains(lat: Double, lon: Double, floor: Int?) -> Bool {
        if let floors {
            guard let floor, floors.contains(floor) else { return false }
        }
        return shape.contains(lat: lat, lon: lon)
    }

    /// The index filter's part for this place.
    var floorRange: ClosedRange<Int16>? { floors.map { Int16($0.lowerBound)...Int16($0.upperBound) } }
}

extension Place {
    /// A place from `PUT /api/v1/moderation/places/{slug}`'s body.
    public init(slug: String, json: JSONValue) throws(ValidationError) {
        guard case .object(let members) = json else { throw ValidationError(field: nil, "the body must be a JSON object") }
        let fields = JSONFields(members)
        self.slug = try Self.validatedSlug(slug, field: "slug")
        name = try TextRules.normalizedText(try fields.requiredString("name"), field: "name", maxScalars: 120, allowEmpty: false)
        description = try TextRules.normalizedText(try fields.optionalString("description") ?? "", field: "description", maxScalars: 2000, allowEmpty: true)
        shape = try Self.shape(members["polygon"])
        floors = try Self.floors(members["floors"])
    }

    /// `[a-z0-9-]{1,64}`.
    public static func validatedSlug(_ text: String, field: String) throws(ValidationError) -> String {
        guard (1...64).contains(text.utf8.count), text.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) else {
            throw ValidationError(field: field, "must be 1 to 64 of a-z, 0-9 and -")
        }
        return text
    }

    static func shape(_ value: JSONValue?) throws(ValidationError) -> PlaceShape {
        guard case .array(let items)? = value else { throw ValidationError(field: "polygon", "is required: an array of [lon, lat] pairs") }
        guard items.count <= PlaceShape.vertexLimit + 1 else {
            throw ValidationError(field: "polygon", "must have at most \(PlaceShape.vertexLimit) vertices")
        }
        var ring: [(lon: Double, lat: Double)] = []
        for (i, item) in items.enumerated() {
            guard case .array(let pair) = item, pair.count == 2, case .number(let lon) = pair[0], case .number(let lat) = pair[1] else {
                throw ValidationError(field: "polygon", "vertex \(i) must be a [lon, lat] pair of numbers")
            }
            ring.append((lon, lat))
        }
        do {
            return try PlaceShape.validated(ring)
        } catch {
            throw ValidationError(field: "polygon", error.reason)
        }
    }

    static func floors(_ value: JSONValue?) throws(ValidationError) -> ClosedRange<Int>? {
        switch value {
        case nil, .null?: return nil
        case .array(let pair)? where pair.count == 2:
            guard case .number(let low) = pair[0], case .number(let high) = pair[1], low.isFinite, high.isFinite,
                low == low.rounded(), high == high.rounded(), low >= -20, high <= 200, low <= high
            else { throw ValidationError(field: "floors", "must be [min, max]: integers from -20 to 200, min at most max") }
            return Int(low)...Int(high)
        default:
            throw ValidationError(field: "floors", "must be [min, max] or null")
        }
    }
}
