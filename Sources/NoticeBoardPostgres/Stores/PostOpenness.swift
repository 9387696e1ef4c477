/// Which posts still take likes, replies and reports: visible and not expired, since an expired
/// note is history and history is read-only (contract 1.2).
enum PostOpenness {
    /// A condition on `posts` read at the statement's own instant, so a note that ends while a
    /// transaction waits for its row lock is judged when it is taken.
    static let openCondition = "status = 'visible' AND (expires_at IS NULL OR expires_at > clock_timestamp())"
}
