/// Likes of record: one per device and post, the post's `likeCount` kept in the same transaction.
public protocol LikeStore: Sendable {
    /// Adds (`liked`) or removes a device's like; `nil` if the post is not visible or has expired. The post's
    /// state after the change (or as it was, when nothing changed) comes back to be reconciled.
    func setLike(postId: Int64, deviceHash: String, liked: Bool) async throws -> (state: PostState, changed: Bool)?
    /// Which of these posts the device likes.
    func likedPosts(deviceHash: String, among ids: [Int64]) async throws -> Set<Int64>
}

/// Replies of record, their reports and moderation.
public protocol ReplyStore: Sendable {
    /// Adds a reply to a visible, unexpired post and raises its reply count; `nil` otherwise.
    /// Idempotency as for posts (the same global key space).
    func create(postId: Int64, message: String, deviceHash: String?, clientHash: String?, idempotency: IdempotencyRequest?)
        async throws -> (outcome: ReplyOutcome, post: PostState?)?
    /// The reply an earlier request with this key made, `nil` if the key is unused.
    func existingReply(for idempotency: IdempotencyRequest) async throws -> ReplyOutcome?
    /// A visible post's visible replies, oldest first; `nil` if the post is not visible.
    func replies(postId: Int64, limit: Int, after: (createdAt: Int64, id: Int64)?) async throws -> Page<Reply>?
    /// A visible reply by id (for streams following another instance's replies).
    func reply(id: Int64) async throws -> Reply?
    /// Counts a report once per client; hides the reply when distinct reporters reach `threshold`.
    func report(replyId: Int64, clientHash: String, reason: String, threshold: Int) async throws -> ReplyReportOutcome
    /// Hides, restores or deletes a reply, audited with its id; `nil` if there is none.
    func apply(_ action: ModerationAction, to replyId: Int64, actor: String, reason: String?) async throws -> ReplyStatusChange?
    func moderationReplies(_ query: ReplyModerationQuery) async throws -> Page<ModeratedReply>
}

