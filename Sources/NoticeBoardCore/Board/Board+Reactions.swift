/// Likes, replies and author deletes through the board: committed first, then the post's new
/// counts go into the index (the popular order reads them) and replies out to live streams.
extension Board {
    /// Likes (or stops liking) a visible post for a device; the post's like count after and
    /// whether this changed it, `nil` if the post is not visible.
    public func setLike(postId: Int64, deviceHash: String, liked: Bool) async throws -> (likeCount: Int, changed: Bool)? {
        guard let result = try await likes().setLike(postId: postId, deviceHash: deviceHash, liked: liked) else { return nil }
        reconcile(result.state)
        return (result.state.post.likeCount, result.changed)
    }

    /// Which of these posts the device likes.
    public func likedPosts(deviceHash: String, among ids: [Int64]) async throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        return try await likes().likedPosts(deviceHash: deviceHash, among: ids)
    }

    /// For a device's request: which of the posts it likes, and which it made; `nil` without a device.
    public func viewerMarks(for posts: [Post], deviceHash: String?) async -> [Int64: ViewerMarks]? {
        guard let deviceHash else { return nil }
        // Only posts someone likes can be liked by this device: most pages ask nothing. Reads are
        // answered from memory while the database is away: then no post shows as liked.
        let liked = (try? await likedPosts(deviceHash: deviceHash, among: posts.filter { $0.likeCount > 0 }.map(\.id))) ?? []
        var marks: [Int64: ViewerMarks] = [:]
        for post in posts { marks[post.id] = ViewerMarks(likedByMe: liked.contains(post.id), mine: post.deviceHash == deviceHash) }
        return marks
    }

    /// Adds a reply to a visible post; `nil` if the post is not visible.
    public func reply(
        to postId: Int64, _ submission: ReplySubmission, deviceHash: String?, clientHash: String?, idempotency: IdempotencyRequest?
    ) async throws -> ReplyOutcome? {
        guard let result = try await replies().create(
            postId: postId, message: submission.message, deviceHash: deviceHash, clientHash: clientHash, idempotency: idempotency)
        else { return nil }
        if let post = result.post { reconcile(post) }
        if case .created(let reply) = result.outcome, let post = result.post?.post { announce(reply, on: post) }
        return result.outcome
    }

    /// The reply an earlier request with this idempotency key made, `nil` if the key is unused.
    public func replayReply(_ idempotency: IdempotencyRequest) async throws -> ReplyOutcome? {
        try await replies().existingReply(for: idempotency)
    }

    /// A visible post's visible replies, oldest first; `nil` if the post is not visible.
    public func replies(postId: Int64, limit: Int, after: (createdAt: Int64, id: Int64)?) async throws -> Page<Reply>? {
        try await replies().replies(postId: postId, limit: limit, after: after)
    }

    public func reportReply(replyId: Int64, clientHash: String, reason: String, threshold: Int) async throws -> ReplyReportOutcome {
        let outcome = try await replies().report(replyId: replyId, clientHash: clientHash, reason: reason, threshold: threshold)
        if case .recorded(_, let hidden?) = outcome {
            if let post = hidden.post { reconcile(post) }
            publish(hidden)
        }
        return outcome
    }

    /// Hides, restores or deletes a reply; `nil` if there is none.
    public func moderateReply(_ action: ModerationAction, replyId: Int64, by moderator: String, reason: String?) async throws
        -> ReplyStatusChange?
    {
        guard let change = try await replies().apply(action, to: replyId, actor: moderator, reason: reason) else { return nil }
        if let post = change.post { reconcile(post) }
        publish(change)
        return change
    }

    public func moderationReplies(_ query: ReplyModerationQuery) async throws -> Page<ModeratedReply> {
        try await replies().moderationReplies(query)
    }

    /// Deletes a post for its author: the device key must be the one it was posted with.
    public func deleteByAuthor(postId: Int64, deviceHash: String) async throws -> AuthorDeleteOutcome {
        guard let moderation else { throw StoreError.unavailable("this board has no moderation store") }
        let outcome = try await moderation.deleteByAuthor(postId: postId, deviceHash: deviceHash)
        if case .deleted(let change) = outcome { apply(change) }
        return outcome
    }

    /// Tells streams of a reply once, whether this instance made it or another one did.
    func announce(_ reply: Reply, on post: Post) {
        applyingChange {
            guard state.write({ $0.publishedReplies.set(reply.id, to: true) }) else { return }
            feed.publish(.reply(reply, post: post))
        }
    }

    /// Tells streams once that a reply left its thread, so open pages drop it at once.
    func announceRemoval(ofReply id: Int64, on post: Post) {
        applyingChange {
            guard state.write({ $0.publishedReplies.set(id, to: false) }) else { return }
            feed.publish(.replyRemoved(id: id, post: post))
        }
    }

    /// A moderator's change that showed or took away a reply, told to streams while its note is
    /// on the board (a change that kept it shown or kept it away leaves the post's count alone).
    private func publish(_ change: ReplyStatusChange) {
        guard let post = change.post, post.status == .visible else { return }
        if change.reply.status == .visible {
            announce(change.reply.reply, on: post.post)
        } else {
            announceRemoval(ofReply: change.reply.reply.id, on: post.post)
        }
    }

    /// Tells streams that notes whose lifetime ended by `now` left the board; returns how many.
    @discardableResult
    public func publishExpiries(now: Int64 = Timestamp.nowMilliseconds()) -> Int {
        applyingChange {
            let expired = state.write { state -> [Post] in
                state.expiries.popDue(atOrBefore: now).compactMap { id in
                    guard let post = state.post(id), let expiresAt = post.expiresAt, expiresAt <= now else { return nil }
                    return post
                }
            }
            for post in expired { feed.publish(.remove(id: post.id, lat: post.lat, lon: post.lon)) }
            return expired.count
        }
    }

    /// A post's committed new state from a like, a reply or a reply's moderation: into the index,
    /// and the other instances told to catch up now rather than on their timer.
    func reconcile(_ state: PostState) {
        reconcile(state.post, status: state.status, version: state.version)
        committedChanges.continuation.yield()
    }

    private func likes() throws -> any LikeStore {
        guard let likeStore else { throw StoreError.unavailable("this board has no like store") }
        return likeStore
    }

    private func replies() throws -> any ReplyStore {
        guard let replyStore else { throw StoreError.unavailable("this board has no reply store") }
        return replyStore
    }
}

/// What a device's own view adds to a post: `likedByMe` and `mine`.
public struct ViewerMarks: Sendable, Equatable {
    public var likedByMe: Bool
    public var mine: Bool

    public init(likedByMe: Bool, mine: Bool) {
        self.likedByMe = likedByMe
        self.mine = mine
    }
}

public enum AuthorDeleteOutcome: Sendable, Equatable {
    case deleted(StatusChange)
    /// The post was made with another device key, or none.
    case forbidden
    /// No such post, hidden for review, or deleted already.
    case notFound
}
