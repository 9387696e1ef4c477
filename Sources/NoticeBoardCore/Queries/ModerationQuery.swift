import GeoIndex

/// `GET /api/v1/moderation/posts`, validated.
public struct ModerationQuery: Sendable {
    public var tags: [String]
    public var from: Int64?
    public var to: Int64?
    /// `nil` for every status.
    public var status: PostStatus?
    public var reportedOnly: Bool
    public var clientId: String?
    public var box: GeoBox?
    public var limit: Int
    public var after: (createdAt: Int64, id: Int64)?

    public init(_ parameters: QueryParameters) throws(ValidationError) {
        tags = try parameters.tags()
        (from, to) = try parameters.timeRange()
        switch parameters.first("status") {
        case nil, "all"?: status = nil
        case let text?:
            guard let parsed = PostStatus(rawValue: text) else {
                throw ValidationError(field: "status", "must be visible, hidden, deleted or all")
            }
            status = parsed
        }
        switch parameters.first("reported") {
        case nil, "false"?: reportedOnly = false
        case "true"?: reportedOnly = true
        default: throw ValidationError(field: "reported", "must be true or false")
        }
        clientId = try parameters.clientId()
        box = try parameters.box()
        limit = try parameters.limit()
        if let text = parameters.first("cursor") {
            guard case .time(let createdAt, let id) = try PageCursor(decoding: text) else {
                throw ValidationError(field: "cursor", "belongs to a different endpoint")
            }
            after = (createdAt, id)
        }
    }
}
