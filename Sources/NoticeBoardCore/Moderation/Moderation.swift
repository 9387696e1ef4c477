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
    /// The reply acted on; `nil` for an action on a post.
    public var replyId: Int64?

    public init(id: Int64, at: Int64, actor: String, action: String, postId: Int64?, reason: String?, replyId: Int64? = nil) {
        (self.id, self.at, self.actor, self.action, self.postId, self.reason, self.replyId) = (id, at, actor, action, postId, reason, replyId)
    }
}

/// What a moderator may do to a post.
public enum ModerationAction: String, Sendable {
    case hide, restore, delete
    /// Hidden by the system when reports reach the threshold.
    case autoHide = "auto_hide"
    /// Deleted by the device it was posted from.
    case authorDelete = "author_delete"

    public var resultingStatus: PostStatus {
        switch self {
        case .hide, .autoHide: .hidden
        case .restore: .visible
        case .delete, .authorDelete: .deleted
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

/// What a report of a post or a reply did; `Hidden` is the status change an auto-hide made.
public enum ReportOutcome<Hidden: Sendable & Equatable>: Sendable, Equatable {
    /// A first report from this client; `autoHidden` when it reached the threshold.
    case recorded(reportCount: Int, autoHidden: Hidden?)
    /// This client had reported it already: counted once.
    case repeated
    /// No such post or reply, or not open to reports.
    case notFound
}

public typealias PostReportOutcome = ReportOutcome<StatusChange>
public typealias ReplyReportOutcome = ReportOutcome<ReplyStatusChange>

public enum ModerationError: Error, Sendable, Equatable {
    /// The post is deleted: it cannot be restored or hidden again.
    case deleted
}
