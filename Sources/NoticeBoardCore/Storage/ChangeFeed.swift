/// The store's sequence of committed post changes, made by any instance sharing the database:
/// how each instance keeps its index in step with the others.
public protocol ChangeFeed: Sendable {
    /// A sequence number to follow from when the index is loaded now: every change not in a
    /// load that starts after this call has a higher number. Numbers are taken before commit,
    /// so this stays a minute behind the newest (replaying a change is harmless), unless the
    /// store knows every number up to a later one committed (after an import).
    func startingSequence() async throws -> Int64

    /// Changes after `sequence`, in sequence order, each with the post's state now; those this
    /// process made come as `.own`, without the post, unless `ownInFull`.
    func changes(after sequence: Int64, limit: Int, ownInFull: Bool) async throws -> [FeedEntry]

    /// Calls `wake` whenever a writer announces committed changes (and once when listening
    /// starts), until it fails or is cancelled.
    func listen(wake: @escaping @Sendable () -> Void) async throws

    /// Whether `listen` hears announcements where changes are read (not on a hot standby:
    /// followers there poll by sequence, often).
    var hearsAnnouncements: Bool { get }

    /// Tells every listener that changes were committed (after the commit, outside the writing
    /// transaction: announcing inside it would make concurrent writers commit one at a time).
    func announce() async throws

    /// Forgets changes older than `hours`: an instance starting later loads the posts themselves.
    func prune(olderThanHours hours: Int) async throws
}

/// A row of the change feed.
public enum FeedEntry: Sendable, Equatable {
    /// A change another process committed, with the post's state now.
    case change(PostChange)
    /// A change this process committed (and applied then): the post and its version now.
    case own(sequence: Int64, postId: Int64, version: Int64)

    public var sequence: Int64 {
        switch self {
        case .change(let change): change.sequence
        case .own(let sequence, _, _): sequence
        }
    }
}

public struct PostChange: Sendable, Equatable {
    public var sequence: Int64
    public var post: Post
    public var status: PostStatus
    /// The post's version in that state: every update of a post raises it.
    public var version: Int64
    /// The reply this change made or changed, when it is visible now.
    public var reply: Reply?
    /// The reply this change made or changed, when it is hidden or deleted now.
    public var removedReplyId: Int64?

    public init(sequence: Int64, post: Post, status: PostStatus, version: Int64, reply: Reply? = nil, removedReplyId: Int64? = nil) {
        self.reply = reply
        self.removedReplyId = removedReplyId
        self.sequence = sequence
        self.post = post
        self.status = status
        self.version = version
    }
}
