/// A moderator's notice for everyone inside a place, shown until its end.
public struct Announcement: Sendable, Equatable {
    public var id: Int64
    public var place: String
    public var message: String
    public var createdAt: Int64
    public var until: Int64

    public init(id: Int64, place: String, message: String, createdAt: Int64, until: Int64) {
        self.id = id
        self.place = place
        self.message = message
        self.createdAt = createdAt
        self.until = until
    }

    public func isCurrent(at now: Int64) -> Bool { until > now }
}

/// `POST /api/v1/moderation/places/{slug}/announcements`'s body, validated.
public struct AnnouncementDraft: Sendable, Equatable {
    public static let longestMilliseconds: Int64 = 366 * 86_400_000

    public var message: String
    public var until: Int64

    public init(message: String, until: Int64) {
        self.message = message
        self.until = until
    }

    /// `until` must be later than now and within 366 days.
    public init(json: JSONValue, now: Int64) throws(ValidationError) {
        guard case .object(let members) = json else { throw ValidationError(field: nil, "the body must be a JSON object") }
        let fields = JSONFields(members)
        message = try TextRules.normalizedMessage(try fields.requiredString("message"))
        let text = try fields.requiredString("until")
        guard let until = Timestamp.parseTruncatedMilliseconds(text) else {
            throw ValidationError(field: "until", "must be an RFC 3339 timestamp such as 2026-11-21T10:00:00.123Z")
        }
        guard until > now, until <= now + Self.longestMilliseconds else {
            throw ValidationError(field: "until", "must be later than now and at most 366 days ahead")
        }
        self.until = until
    }
}
