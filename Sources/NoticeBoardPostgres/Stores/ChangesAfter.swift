import NoticeBoardCore
import PostgresNIO

/// The change feed's page: changes after a sequence joined with each post's state now (and the
/// state now of the change's reply, if any), prepared once per connection. The lookups are LATERAL
/// with LIMIT 1 so that they stay primary-key probes even on a young table not yet analysed,
/// where a plain join would be planned as a hash join over every post. The changes of
/// `ownOrigin` come with their post's id and version only: that process applied them already.
struct ChangesAfter: PostgresPreparedStatement {
    typealias Row = FeedEntry

    static let sql = """
        SELECT c.seq, $3::text IS NOT NULL AND c.origin IS NOT DISTINCT FROM $3, \(PostRow.columns(of: "p")), p.status, p.version, r.status,
            \(ReplyRow.columns(of: "r"))
        FROM post_changes c
        CROSS JOIN LATERAL (SELECT * FROM posts WHERE id = c.post_id LIMIT 1) p
        LEFT JOIN LATERAL (SELECT * FROM replies WHERE id = c.reply_id LIMIT 1) r ON true
        WHERE c.seq > $1 ORDER BY c.seq LIMIT $2
        """

    let sequence: Int64
    let limit: Int
    /// The process whose changes are left as `.own`; `nil` for every change in full.
    var ownOrigin: String?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(sequence)
        bindings.append(Int64(limit))
        bindings.append(ownOrigin)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> FeedEntry {
        let cells = try PostRow.cells(of: row, count: 5 + PostRow.columnCount + ReplyRow.columnCount)
        let after = 2 + PostRow.columnCount
        let sequence = try cells[0].decode(Int64.self)
        if try cells[1].decode(Bool.self) {
            return .own(sequence: sequence, postId: try cells[2].decode(Int64.self), version: try cells[after + 1].decode(Int64.self))
        }
        let post = try PostRow.decode(cells, from: 2)
        var change = PostChange(
            sequence: sequence, post: post,
            status: PostStatus(rawValue: try cells[after].decode(String.self)) ?? .hidden, version: try cells[after + 1].decode(Int64.self))
        if let reply = try ReplyRow.decodeIfPresent(cells, from: after + 3, post: post) {
            if try cells[after + 2].decode(String.self) == PostStatus.visible.rawValue {
                change.reply = reply
            } else {
                change.removedReplyId = reply.id
            }
        }
        return .change(change)
    }
}
