/// A `POST /api/v1/posts` body, validated field by field: either coordinates or a beacon.
public struct PostSubmission: Sendable, Equatable {
    public enum Location: Sendable, Equatable {
        case coordinates(lat: Double, lon: Double, floor: Int?)
        case beacon(BeaconReference)
    }

    public var location: Location
    public var heading: Double?
    public var message: String
    public var tag: String
    public var accuracy: Double?
    public var expiresAt: Int64?

    /// The shortest and longest lifetimes a note may be given.
    public static let shortestLifetime: Int64 = 60_000
    public static let longestLifetime: Int64 = 366 * 86_400_000

    /// Validates a parsed body. Unknown and server-owned fields (`id`, `createdAt`) are ignored.
    public init(json: JSONValue, now: Int64 = Timestamp.nowMilliseconds()) throws(ValidationError) {
        guard case .object(let body) = json else { throw ValidationError(field: nil, "the body must be a JSON object") }
        let fields = JSONFields(body)
        if let beaconText = try fields.optionalString("beacon") {
            for locationField in ["lat", "lon", "floor"] where fields.isPresent(locationField) {
                throw ValidationError(field: "beacon", "cannot be combined with \(locationField)")
            }
            location = .beacon(try BeaconReference(parsing: beaconText))
        } else {
            let lat = try fields.requiredNumber("lat", in: -90...90)
            let lon = try fields.requiredNumber("lon", in: -180...180)
            let floor = try fields.optionalInteger("floor", in: -20...200)
            location = .coordinates(lat: lat, lon: lon, floor: floor)
        }
        heading = try fields.optionalNumber("heading", in: 0..<360)
        message = try TextRules.normalizedMessage(try fields.requiredString("message"))
        tag = try TextRules.normalizedTag(try fields.requiredString("tag"))
        accuracy = try fields.optionalNumber("accuracy", in: 0...10000)
        if let text = try fields.optionalString("expiresAt") {
            guard let instant = Timestamp.parseTruncatedMilliseconds(text) else {
                throw ValidationError(field: "expiresAt", "must be an RFC 3339 timestamp such as 2026-11-21T10:00:00.123Z")
            }
            guard instant > now + Self.shortestLifetime, instant <= now + Self.longestLifetime else {
                throw ValidationError(field: "expiresAt", "must be more than 60 seconds and at most 366 days from now")
            }
            expiresAt = instant
        }
    }

    /// The draft to store once the location is known.
    public func draft(lat: Double, lon: Double, floor: Int?, beacon: String?) -> PostDraft {
        PostDraft(
            lat: lat, lon: lon, heading: heading, message: message, tag: tag, accuracy: accuracy, floor: floor, beacon: beacon,
            expiresAt: expiresAt)
    }
}

/// Typed access to a JSON object's members, each failure naming its field.
struct JSONFields {
    private enum Storage {
        case object([String: JSONValue])
        case pairs([(name: String, value: JSONValue)])
    }

    private let storage: Storage

    init(_ members: [String: JSONValue]) { storage = .object(members) }

    /// A few members in a list, searched in order (the last of a name wins, as in an object):
    /// cheaper than hashing for the handful of columns of each CSV row.
    init(pairs: [(name: String, value: JSONValue)]) { storage = .pairs(pairs) }

    subscript(name: String) -> JSONValue? {
        switch storage {
        case .object(let members): members[name]
        case .pairs(let pairs): pairs.last { $0.name == name }?.value
        }
    }

    /// Present and not `null`.
    func isPresent(_ name: String) -> Bool {
        if let value = self[name], value != .null { return true }
        return false
    }

    func requiredNumber(_ name: String, in range: ClosedRange<Double>) throws(ValidationError) -> Double {
        guard let value = try optionalNumber(name, in: range) else { throw ValidationError(field: name, "is required") }
        return value
    }

    func optionalNumber(_ name: String, in range: ClosedRange<Double>) throws(ValidationError) -> Double? {
        guard let number = try optionalFiniteNumber(name) else { return nil }
        guard range.contains(number) else {
            throw ValidationError(field: name, "must be between \(range.lowerBound.clean) and \(range.upperBound.clean)")
        }
        return number
    }

    func optionalNumber(_ name: String, in range: Range<Double>) throws(ValidationError) -> Double? {
        guard let number = try optionalFiniteNumber(name) else { return nil }
        guard range.contains(number) else {
            throw ValidationError(field: name, "must be at least \(range.lowerBound.clean) and less than \(range.upperBound.clean)")
        }
        return number
    }

    func optionalInteger(_ name: String, in range: ClosedRange<Int>) throws(ValidationError) -> Int? {
        guard let number = try optionalFiniteNumber(name) else { return nil }
        guard number == number.rounded(), number >= Double(range.lowerBound), number <= Double(range.upperBound) else {
            throw ValidationError(field: name, "must be an integer between \(range.lowerBound) and \(range.upperBound)")
        }
        return Int(number)
    }

    func requiredString(_ name: String) throws(ValidationError) -> String {
        guard let value = try optionalString(name) else { throw ValidationError(field: name, "is required") }
        return value
    }

    func optionalString(_ name: String) throws(ValidationError) -> String? {
        switch self[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw ValidationError(field: name, "must be a string")
        }
    }

    private func optionalFiniteNumber(_ name: String) throws(ValidationError) -> Double? {
        switch self[name] {
        case nil, .null?: return nil
        case .number(let number)?:
            guard number.isFinite else { throw ValidationError(field: name, "must be a finite number") }
            return number
        default: throw ValidationError(field: name, "must be a number")
        }
    }
}

extension Double {
    /// `90` rather than `90.0` in messages.
    var clean: String { self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self) }
}
