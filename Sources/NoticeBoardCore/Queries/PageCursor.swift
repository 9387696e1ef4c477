import GeoIndex

/// The opaque `cursor` of paged responses: the position of the last item returned.
public enum PageCursor: Sendable, Equatable {
    case distance(Double, id: Int64)
    case time(createdAt: Int64, id: Int64)

    public var encoded: String {
        let plain: String
        switch self {
        case .distance(let distance, let id): plain = "d.\(String(distance.bitPattern, radix: 16)).\(id)"
        case .time(let createdAt, let id): plain = "t.\(createdAt).\(id)"
        }
        return Base64URL.encode(plain.utf8)
    }

    public init(decoding text: String, field: String = "cursor") throws(ValidationError) {
        let invalid = ValidationError(field: field, "is not a cursor returned by this endpoint")
        guard text.utf8.count <= 200, let bytes = Base64URL.decode(text), let plain = String(validating: bytes, as: UTF8.self) else {
            throw invalid
        }
        let parts = plain.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let id = Int64(parts[2]) else { throw invalid }
        switch parts[0] {
        case "d":
            guard let bits = UInt64(parts[1], radix: 16), Double(bitPattern: bits).isFinite else { throw invalid }
            self = .distance(Double(bitPattern: bits), id: id)
        case "t":
            guard let createdAt = Int64(parts[1]) else { throw invalid }
            self = .time(createdAt: createdAt, id: id)
        default:
            throw invalid
        }
    }

    /// The cursor as a position in a nearby ordering; a cursor of the other ordering is an error.
    func nearbyPosition(for order: NearbySearch.Order) throws(ValidationError) -> NearbyPosition {
        switch (self, order) {
        case (.distance(let d, let id), .distance): return .distance(d, id: id)
        case (.time(let t, let id), .newest): return .newest(createdAt: t, id: id)
        default: throw ValidationError(field: "cursor", "belongs to a different order")
        }
    }

    static func from(_ position: NearbyPosition) -> PageCursor {
        switch position {
        case .distance(let d, let id): .distance(d, id: id)
        case .newest(let t, let id): .time(createdAt: t, id: id)
        }
    }
}
