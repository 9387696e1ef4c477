/// A post brought in from another board (`noticeboard import`): validated like the API's
/// `POST /api/v1/posts`, but it keeps its `createdAt`, its status and the id it had there.
public struct ImportedPost: Sendable, Equatable {
    public var draft: PostDraft
    /// Milliseconds since the epoch, truncated like the store's.
    public var createdAt: Int64
    /// `visible` or `hidden`; a deleted post has no text left to import.
    public var status: PostStatus
    /// The post's id on the board it comes from, when the file has one; it tells apart two
    /// identical notes when the import is re-run.
    public var sourceID: String?
    /// When the note left (or leaves) the live board; kept as it was, past or future.
    public var expiresAt: Int64?
    /// Its thread (NDJSON only): visible and hidden replies, each with its time.
    public var replies: [ImportedReply] = []

    /// The names a column or member may have, canonical name first: the API's own, the
    /// snake-case of other exports, and the original board's `pid, longitude, latitude,
    /// heading, msg, tag, pdate`.
    public static let columnAliases: [String: String] = [
        "createdAt": "createdAt", "expiresAt": "expiresAt",
        "id": "id", "pid": "id",
        "lat": "lat", "latitude": "lat",
        "lon": "lon", "lng": "lon", "longitude": "lon",
        "heading": "heading",
        "message": "message", "msg": "message",
        "tag": "tag",
        "createdat": "createdAt", "created_at": "createdAt", "pdate": "createdAt",
        "accuracy": "accuracy", "floor": "floor", "beacon": "beacon", "status": "status",
        "expiresat": "expiresAt", "expires_at": "expiresAt", "replies": "replies",
    ]

    static let numericColumns: Set<String> = ["lat", "lon", "heading", "accuracy", "floor"]

    /// Validates one NDJSON object, or one CSV row turned into members by `members(header:fields:)`.
    public init(json: JSONValue) throws(ValidationError) {
        guard case .object(let raw) = json else { throw ValidationError(field: nil, "each line must be a JSON object") }
        var canonical: [String: JSONValue] = [:]
        for (name, value) in raw {
            if let known = Self.columnAliases[name.lowercased()] { canonical[known] = value }
        }
        try self.init(fields: JSONFields(canonical))
    }

    /// Validates members already under their canonical names.
    init(fields: JSONFields) throws(ValidationError) {
        let lat = try fields.requiredNumber("lat", in: -90...90)
        let lon = try fields.requiredNumber("lon", in: -180...180)
        // 360° is north written the other way (some exporters round 359.96 up); the API stores 0.
        var heading = try fields.optionalNumber("heading", in: 0...360)
        if heading == 360 { heading = 0 }
        let message = try TextRules.normalizedMessage(try fields.requiredString("message"))
        let tag = try TextRules.normalizedTag(try fields.requiredString("tag"))
        let accuracy = try fields.optionalNumber("accuracy", in: 0...10000)
        let floor = try fields.optionalInteger("floor", in: -20...200)
        let beacon = try fields.optionalString("beacon").map { text throws(ValidationError) in
            try BeaconReference(parsing: text).description
        }
        draft = PostDraft(lat: lat, lon: lon, heading: heading, message: message, tag: tag, accuracy: accuracy, floor: floor, beacon: beacon)
        createdAt = try Self.createdAt(fields["createdAt"])
        if let text = try fields.optionalString("expiresAt") {
            guard let instant = Timestamp.parseTruncatedMilliseconds(text) else {
                throw ValidationError(field: "expiresAt", "must be an RFC 3339 date-time")
            }
            expiresAt = instant
        }
        switch fields["replies"] {
        case nil, .null?: break
        case .array(let items)?:
            for item in items { replies.append(try ImportedReply(json: item)) }
        default: throw ValidationError(field: "replies", "must be an array of replies")
        }
        switch try fields.optionalString("status")?.lowercased() {
        case nil, "visible": status = .visible
        case "hidden": status = .hidden
        default: throw ValidationError(field: "status", "must be visible or hidden")
        }
        switch fields["id"] {
        case nil, .null?: sourceID = nil
        case .string(let text)?: sourceID = text
        case .number(let number)? where number.isFinite && number == number.rounded() && abs(number) < 1e18:
            sourceID = String(Int64(number))
        default: throw ValidationError(field: "id", "must be a string or an integer")
        }
    }

    /// A CSV row as JSON members: numeric columns parsed (a bad number is an error naming the
    /// column), empty cells absent, columns the importer does not know ignored.
    public static func members(header: [String], fields: [String]) throws(ValidationError) -> JSONValue {
        let pairs = try CSVLayout(header: header).members(of: fields)
        return .object(Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }))
    }

    /// Which cell of a CSV row holds which member, worked out once from the header: each row
    /// then costs no name lookups.
    public struct CSVLayout: Sendable {
        struct Column: Sendable {
            var index: Int
            var name: String
            var isNumeric: Bool
            var isMessage: Bool
        }

        let width: Int
        let columns: [Column]

        /// `header` may use any alias, in any case.
        public init(header: [String]) {
            width = header.count
            columns = header.enumerated().compactMap { index, name in
                guard let canonical = ImportedPost.columnAliases[name] ?? ImportedPost.columnAliases[name.lowercased()] else { return nil }
                return Column(index: index, name: canonical, isNumeric: ImportedPost.numericColumns.contains(canonical), isMessage: canonical == "message")
            }
        }

        func members(of fields: [String]) throws(ValidationError) -> [(name: String, value: JSONValue)] {
            guard fields.count == width else {
                throw ValidationError(field: nil, "has \(fields.count) columns where the header has \(width)")
            }
            var members: [(name: String, value: JSONValue)] = []
            members.reserveCapacity(columns.count)
            for column in columns {
                let cell = fields[column.index]
                let text = column.isMessage ? cell : cell.trimmingWhitespace
                if text.isEmpty, !column.isMessage { continue }
                if column.isNumeric {
                    guard let number = DecimalText.double(text), number.isFinite else { throw ValidationError(field: column.name, "must be a number") }
                    members.append((column.name, .number(number)))
                } else {
                    members.append((column.name, .string(text)))
                }
            }
            return members
        }

        /// Validates one row.
        public func post(from fields: [String]) throws(ValidationError) -> ImportedPost {
            try ImportedPost(fields: JSONFields(pairs: try members(of: fields)))
        }
    }

    /// Checks that a CSV header names the columns a post needs; returns it with each known
    /// column under its canonical name (others trimmed, and ignored by `members`).
    public static func validatedHeader(_ header: [String]) throws(ValidationError) -> [String] {
        let names = header.map { columnAliases[$0.trimmingWhitespace.lowercased()] ?? $0.trimmingWhitespace }
        for required in ["lat", "lon", "message", "tag", "createdAt"] where !names.contains(required) {
            throw ValidationError(field: required, "the header has no \(required) column")
        }
        return names
    }

    /// RFC 3339 (any offset or fraction), a date and time without an offset (taken as UTC, as
    /// database exports write them), or seconds / milliseconds since the epoch.
    static func createdAt(_ value: JSONValue?) throws(ValidationError) -> Int64 {
        let invalid = ValidationError(field: "createdAt", "must be an RFC 3339 date-time or a Unix time")
        switch value {
        case nil, .null?:
            throw ValidationError(field: "createdAt", "is required (an import keeps each post's time)")
        case .number(let number)?:
            guard let milliseconds = epochMilliseconds(number) else { throw invalid }
            return milliseconds
        case .string(let text)?:
            // Dates first: no text reads as both, and a date handed to `Double` is a wasted `strtod`.
            if let parsed = Timestamp.parseTruncatedMilliseconds(text) { return parsed }
            if let parsed = Timestamp.parseTruncatedMilliseconds(text + "Z") { return parsed }
            if let number = DecimalText.double(text), let milliseconds = epochMilliseconds(number) { return milliseconds }
            throw invalid
        default:
            throw invalid
        }
    }

    /// Numbers below 1e11 are seconds (until the year 5138), larger ones milliseconds.
    private static func epochMilliseconds(_ number: Double) -> Int64? {
        guard number.isFinite, abs(number) < 1e15 else { return nil }
        return abs(number) < 1e11 ? Int64((number * 1000).rounded(.down)) : Int64(number.rounded(.down))
    }
}

extension String {
    var trimmingWhitespace: String {
        if let first = utf8.first, let last = utf8.last, first < 0x80, last < 0x80,
            !TextRules.isASCIIWhitespace(first), !TextRules.isASCIIWhitespace(last)
        {
            return self
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}

/// A reply brought in with its note: `{"message", "createdAt", "status"?}`.
public struct ImportedReply: Sendable, Equatable {
    public var message: String
    public var createdAt: Int64
    public var status: PostStatus

    public init(json: JSONValue) throws(ValidationError) {
        guard case .object(let members) = json else { throw ValidationError(field: "replies", "each reply must be a JSON object") }
        let fields = JSONFields(members)
        message = try TextRules.normalizedMessage(try fields.requiredString("message"), field: "replies")
        guard let text = try fields.optionalString("createdAt"), let time = Timestamp.parseTruncatedMilliseconds(text) else {
            throw ValidationError(field: "replies", "each reply needs createdAt as an RFC 3339 date-time")
        }
        createdAt = time
        switch try fields.optionalString("status")?.lowercased() {
        case nil, "visible": status = .visible
        case "hidden": status = .hidden
        default: throw ValidationError(field: "replies", "a reply's status must be visible or hidden")
        }
    }
}
