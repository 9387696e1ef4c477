/// A reply in a note's thread.
public struct Reply: Sendable, Equatable {
    public var id: Int64
    public var postId: Int64
    public var message: String
    /// Milliseconds since the Unix epoch.
    public var createdAt: Int64
    /// The keyed hash of the device key it was written with, if any (never written out).
    public var deviceHash: String?
    /// Whether the reply's device is the one the note was posted from (Jodel's "OJ").
    public var byAuthor: Bool

    public init(id: Int64, postId: Int64, message: String, createdAt: Int64, deviceHash: String?, byAuthor: Bool) {
        (self.id, self.postId, self.message, self.createdAt, self.deviceHash, self.byAuthor) =
            (id, postId, message, createdAt, deviceHash, byAuthor)
    }
}

/// A reply as moderators see it.
public struct ModeratedReply: Sendable, Equatable {
    public var reply: Reply
    public var status: PostStatus
    public var reportCount: Int
    public var clientId: String?

    public init(reply: Reply, status: PostStatus, reportCount: Int, clientId: String?) {
        (self.reply, self.status, self.reportCount, self.clientId) = (reply, status, reportCount, clientId)
    }
}

/// `POST /api/v1/posts/{id}/replies`, validated.
public struct ReplySubmission: Sendable, Equatable {
    public var message: String

    public init(json: JSONValue) throws(ValidationError) {
        guard case .object(let body) = json else { throw ValidationError(field: nil, "the body must be a JSON object") }
        message = try TextRules.normalizedMessage(try JSONFields(body).requiredString("message"))
    }
}

public enum ReplyOutcome: Sendable, Equatable {
    case created(Reply)
    /// An earlier request with the same idempotency key made this reply.
    case replayed(Reply)

    public var reply: Reply {
        switch self {
        case .created(let reply), .replayed(let reply): reply
        }
    }
}

/// A reply's change of status, with the note's state after it (its visible reply count).
public struct ReplyStatusChange: Sendable, Equatable {
    public var reply: ModeratedReply
    public var post: PostState?

    public init(reply: ModeratedReply, post: PostState?) {
        self.reply = reply
        self.post = post
    }
}

/// A post as committed: its state and version, for the board to reconcile.
public struct PostState: Sendable, Equatable {
    public var post: Post
    public var status: PostStatus
    public var version: Int64

    public init(post: Post, status: PostStatus, version: Int64) {
        self.post = post
        self.status = status
        self.version = version
    }
}
