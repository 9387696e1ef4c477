import Foundation
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
        return Self.base64URL(plain.utf8)
    }

    private static let base64URLAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Unpadded base64url (RFC 4648 §5), written directly: every nearby page with more
    /// results encodes one, and Foundation's encoder plus three replacements cost more than
    /// the rest of the page's bookkeeping.
    static func base64URL(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index < input.count {
            let remaining = input.count - index
            let b0 = UInt32(input[index])
            let b1 = remaining > 1 ? UInt32(input[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(input[index + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            output.append(base64URLAlphabet[Int(triple >> 18 & 63)])
            output.append(base64URLAlphabet[Int(triple >> 12 & 63)])
            if remaining > 1 { output.append(base64URLAlphabet[Int(triple >> 6 & 63)]) }
            if remaining > 2 { output.append(base64URLAlphabet[Int(triple & 63)]) }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    public init(decoding text: String, field: String = "cursor") throws(ValidationError) {
        let invalid = ValidationError(field: field, "is not a cursor returned by this endpoint")
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard text.count <= 200, let data = Data(base64Encoded: base64), let plain = String(data: data, encoding: .utf8) else {
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
