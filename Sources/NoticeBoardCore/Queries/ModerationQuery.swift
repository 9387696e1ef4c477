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
        status = try parameters.status()
        reportedOnly = try parameters.reportedOnly()
        clientId = try parameters.clientId()
        box = try parameters.box()
        limit = try parameters.limit()
        after = try parameters.timeCursor()
    }
}

/// `GET /api/v1/moderation/replies`, validated.
public struct ReplyModerationQuery: Sendable {
    public var postId: Int64?
    public var from: Int64?
    public var to: Int64?
    public var status: PostStatus?
    public var reportedOnly: Bool
    public var clientId: String?
    public var limit: Int
    public var after: (createdAt: Int64, id: Int64)?

    public init(_ parameters: QueryParameters) throws(ValidationError) {
        postId = try parameters.integer("postId", in: 1...Int.max).map(Int64.init)
        (from, to) = try parameters.timeRange()
        status = try parameters.status()
        reportedOnly = try parameters.reportedOnly()
        clientId = try parameters.clientId()
        limit = try parameters.limit()
        after = try parameters.timeCursor()
    }
}

extension QueryParameters {
    /// `status=visible|hidden|deleted|all`; `nil` for all.
    func status() throws(ValidationError) -> PostStatus? {
        switch first("status") {
        case nil, "all"?: return nil
        case let text?:
            guard let parsed = PostStatus(rawValue: text) else {
                throw ValidationError(field: "status", "must be visible, hidden, deleted or all")
            }
            return parsed
        }
    }

    func reportedOnly() throws(ValidationError) -> Bool {
        switch first("reported") {
        case nil, "false"?: return false
        case "true"?: return true
        default: throw ValidationError(field: "reported", "must be true or false")
        }
    }

    /// A newest-first list's cursor: the last item's time and id.
    public func timeCursor() throws(ValidationError) -> (createdAt: Int64, id: Int64)? {
        guard let text = first("cursor") else { return nil }
        guard case .time(let createdAt, let id) = try PageCursor(decoding: text) else {
            throw ValidationError(field: "cursor", "belongs to a different endpoint")
        }
        return (createdAt, id)
    }
}
