import GeoIndex

/// A post as moderators see it: with its status, distinct reporters and client pseudonym.
public struct ModeratedPost: Sendable, Equatable {
    public var post: Post
    public var status: PostStatus
    public var reportCount: Int
    public var clientId: String?

    public init(post: Post, status: PostStatus, reportCount: Int, clientId: String?) {
        self.post = post
        self.status = status
        self.reportCount = reportCount
        self.clientId = clientId
    }
}

/// One line of the audit log.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    public var at: Int64
    public var actor: String
    public var action: String
    public var postId: Int64?
    public var reason: String?

    public init(id: Int64, at: Int64, actor: String, action: String, postId: Int64?, reason: String?) {
        (self.id, self.at, self.actor, self.action, self.postId, self.reason) = (id, at, actor, action, postId, reason)
    }
}

/// What a moderator may do to a post.
public enum ModerationAction: String, Sendable {
    case hide, restore, delete
    /// Hidden by the system when reports reach the threshold.
    case autoHide = "auto_hide"

    public var resultingStatus: PostStatus {
        switch self {
        case .hide, .autoHide: .hidden
        case .restore: .visible
        case .delete: .deleted
        }
    }
}

/// The outcome of a change of status: the post after it, and its status before.
public struct StatusChange: Sendable, Equatable {
    public var post: ModeratedPost
    public var previous: PostStatus
    /// The post's version after the change.
    public var version: Int64

    public init(post: ModeratedPost, previous: PostStatus, version: Int64) {
        self.post = post
        self.previous = previous
        self.version = version
    }
}

public enum ReportOutcome: Sendable, Equatable {
    /// A first report from this client; `autoHidden` when it reached the threshold.
    case recorded(reportCount: Int, autoHidden: StatusChange?)
    /// This client had reported the post already: counted once.
    case repeated
    /// No such post, or not visible.
    case notFound
}

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

/// Moderation's store of record: statuses, reports, the audit log, moderators and tokens.
public protocol ModerationStore: Sendable {
    /// Changes a post's status and writes the audit entry in one transaction; deleting erases
    /// the message. `nil` if there is no such post; throws `ModerationError.deleted` for a
    /// restore or hide of a deleted post.
    func apply(_ action: ModerationAction, to postId: Int64, actor: String, reason: String?) async throws -> StatusChange?
    /// Counts a report once per client; hides the post when distinct reporters reach `threshold`.
    func report(postId: Int64, clientHash: String, reason: String, threshold: Int) async throws -> ReportOutcome
    func moderationPosts(_ query: ModerationQuery) async throws -> Page<ModeratedPost>
    func audit(limit: Int, before id: Int64?) async throws -> Page<AuditEntry>

    func addModerator(username: String, passwordHash: String) async throws -> Bool
    func removeModerator(username: String) async throws -> Bool
    func setPassword(username: String, passwordHash: String) async throws -> Bool
    func moderators() async throws -> [String]
    func passwordHash(username: String) async throws -> String?
    func storeToken(hash: String, username: String, expiresAt: Int64) async throws
    /// The moderator holding an unexpired token with this hash.
    func moderator(tokenHash: String) async throws -> String?
    func revokeToken(hash: String) async throws
}

public enum ModerationError: Error, Sendable, Equatable {
    /// The post is deleted: it cannot be restored or hidden again.
    case deleted
}
