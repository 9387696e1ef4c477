import GeoIndex

/// Moderation's store of record: statuses, reports and the audit log.
public protocol ModerationStore: Sendable {
    /// Changes a post's status and writes the audit entry in one transaction; deleting erases
    /// the message. `nil` if there is no such post; throws `ModerationError.deleted` for a
    /// restore or hide of a deleted post.
    func apply(_ action: ModerationAction, to postId: Int64, actor: String, reason: String?) async throws -> StatusChange?
    /// Deletes a post for the device it was posted from (audited as `author_delete`).
    func deleteByAuthor(postId: Int64, deviceHash: String) async throws -> AuthorDeleteOutcome
    /// Counts a report once per client; hides the post when distinct reporters reach `threshold`.
    func report(postId: Int64, clientHash: String, reason: String, threshold: Int) async throws -> PostReportOutcome
    func moderationPosts(_ query: ModerationQuery) async throws -> Page<ModeratedPost>
    /// One post in any status, as moderators see it; `nil` if there is no such post.
    func moderatedPost(id: Int64) async throws -> ModeratedPost?
    func audit(limit: Int, before id: Int64?) async throws -> Page<AuditEntry>
    /// Reports, hides (manual and automatic) and deletes made in `from..<to` and posts made then
    /// that are no longer visible, each at its post's position, and the posting clients; within
    /// the box when one is given (the caller narrows further, to a place). Posting clients come
    /// as positions only with `posterPositions` (to be narrowed to a place); otherwise counted.
    func activity(from: Int64, to: Int64, box: GeoBox?, posterPositions: Bool) async throws -> ModerationActivity
}

/// Moderators' accounts and their session tokens (stored only as digests).
public protocol ModeratorAccountStore: Sendable {
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

