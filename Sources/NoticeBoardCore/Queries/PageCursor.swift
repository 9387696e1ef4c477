import GeoIndex

/// The opaque `cursor` of paged responses: the position of the last item returned.
public enum PageCursor: Sendable, Equatable {
    case distance(Double, id: Int64)
    case time(createdAt: Int64, id: Int64)
    /// The popular order's position and the instant its pages are scored at.
    case popular(score: Double, id: Int64, at: Int64)

    public var encoded: String {
        let plain: String
        switch self {
        case .distance(let distance, let id): plain = "d.\(String(distance.bitPattern, radix: 16)).\(id)"
        case .time(let createdAt, let id): plain = "t.\(createdAt).\(id)"
        case .popular(let score, let id, let at): plain = "p.\(String(score.bitPattern, radix: 16)).\(id).\(at)"
        }
        return Base64URL.encode(plain.utf8)
    }

    public init(decoding text: String, field: String = "cursor") throws(ValidationError) {
        let invalid = ValidationError(field: field, "is not a cursor returned by this endpoint")
        guard text.utf8.count <= 200, let bytes = Base64URL.decode(text), let plain = String(validating: bytes, as: UTF8.self) else {
            throw invalid
        }
        let parts = plain.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == (parts.first == "p" ? 4 : 3), let id = Int64(parts[2]) else { throw invalid }
        switch parts[0] {
        case "p":
            guard let bits = UInt64(parts[1], radix: 16), Double(bitPattern: bits).isFinite, let at = Int64(parts[3]) else { throw invalid }
            self = .popular(score: Double(bitPattern: bits), id: id, at: at)
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
        case (.popular(let score, let id, _), .popular): return .popular(score: score, id: id)
        default: throw ValidationError(field: "cursor", "belongs to a different order")
        }
    }

    static func from(_ position: NearbyPosition, scoredAt instant: Int64) -> PageCursor {
        switch position {
        case .distance(let d, let id): .distance(d, id: id)
        case .newest(let t, let id): .time(createdAt: t, id: id)
        case .popular(let score, let id): .popular(score: score, id: id, at: instant)
        }
    }
}
