import GeoIndex

/// A validated request to create a post: what the client may set.
public struct PostDraft: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public var heading: Double?
    public var message: String
    public var tag: String
    public var accuracy: Double?
    public var floor: Int?
    public var beacon: String?
    public var expiresAt: Int64?
    /// The keyed hash of the poster's device key, when one was sent.
    public var deviceHash: String?

    public init(
        lat: Double, lon: Double, heading: Double? = nil, message: String, tag: String, accuracy: Double? = nil,
        floor: Int? = nil, beacon: String? = nil, expiresAt: Int64? = nil, deviceHash: String? = nil
    ) {
        self.expiresAt = expiresAt
        self.deviceHash = deviceHash
        // Stored at 1e-7° (about 1 cm), as the contract allows: the index keeps these as
        // four-byte integers and computes with exactly the doubles the database holds.
        self.lat = FixedDegrees.quantized(lat)
        self.lon = FixedDegrees.quantized(lon)
        self.heading = heading.map(FixedDegrees.quantizedHeading)
        self.message = message
        self.tag = tag
        self.accuracy = accuracy
        self.floor = floor
        self.beacon = beacon
    }
}

/// A draft placed by a beacon: its position comes from the registry.
public struct BeaconReference: Sendable, Hashable, CustomStringConvertible {
    public var uuid: String
    public var major: Int
    public var minor: Int

    public var description: String { "\(uuid):\(major):\(minor)" }

    /// Parses `UUID:major:minor` (UUID case-insensitive, stored lower-case; major/minor 0...65535).
    public init(parsing text: String, field: String = "beacon") throws(ValidationError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let major = Int(parts[1]), let minor = Int(parts[2]),
            (0...65535).contains(major), (0...65535).contains(minor), Self.isUUID(parts[0])
        else {
            throw ValidationError(field: field, "must be UUID:major:minor with major and minor in 0...65535")
        }
        self.uuid = parts[0].lowercased()
        self.major = major
        self.minor = minor
    }

    static func isUUID(_ text: Substring) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return false }
        return groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }
}
