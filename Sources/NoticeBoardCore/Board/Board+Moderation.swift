/// Moderation through the board: a change of status is committed first, then applied to the
/// index and the live streams at once, so a hidden post leaves every read together.
extension Board {
    /// Hides, restores or deletes a post; `nil` if there is no such post.
    public func moderate(_ action: ModerationAction, postId: Int64, by moderator: String, reason: String?) async throws -> StatusChange? {
        guard let change = try await moderationStore().apply(action, to: postId, actor: moderator, reason: reason) else { return nil }
        apply(change)
        return change
    }

    /// Records a client's report, once per client; the post is hidden when distinct reporters
    /// reach `threshold`.
    public func report(postId: Int64, clientHash: String, reason: String, threshold: Int) async throws -> PostReportOutcome {
        let outcome = try await moderationStore().report(postId: postId, clientHash: clientHash, reason: reason, threshold: threshold)
        if case .recorded(_, let autoHidden?) = outcome { apply(autoHidden) }
        return outcome
    }

    /// Posts in any status, as moderators filter them (from the store, not the index, which
    /// holds only visible posts).
    public func moderationPosts(_ query: ModerationQuery) async throws -> Page<ModeratedPost> {
        try await moderationStore().moderationPosts(query)
    }

    /// One post in any status (a hidden or deleted one too), from the store.
    public func moderatedPost(id: Int64) async throws -> ModeratedPost? {
        try await moderationStore().moderatedPost(id: id)
    }

    public func audit(limit: Int, before id: Int64?) async throws -> Page<AuditEntry> {
        try await moderationStore().audit(limit: limit, before: id)
    }

    private func moderationStore() throws -> any ModerationStore {
        guard let moderation else { throw StoreError.unavailable("this board has no moderation store") }
        return moderation
    }
}
