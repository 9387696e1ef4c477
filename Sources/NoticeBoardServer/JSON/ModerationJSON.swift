import NoticeBoardCore

/// The answer to a report: `{"status": "reported", "reportCount": 2}`.
struct ReportJSON: Encodable {
    var status: String
    var reportCount: Int?
}

/// One audit entry; absent post ids and reasons are written as `null`.
struct AuditEntryJSON: Encodable {
    var at: String
    var actor: String
    var action: String
    var postId: Int64?
    var reason: String?
    var replyId: Int64?

    init(_ entry: AuditEntry) {
        (at, actor, action, postId, reason, replyId) =
            (Timestamp.format(milliseconds: entry.at), entry.actor, entry.action, entry.postId, entry.reason, entry.replyId)
    }

    enum CodingKeys: String, CodingKey { case at, actor, action, postId, reason, replyId }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(at, forKey: .at)
        try container.encode(actor, forKey: .actor)
        try container.encode(action, forKey: .action)
        try container.encode(postId, forKey: .postId)
        try container.encode(reason, forKey: .reason)
        try container.encode(replyId, forKey: .replyId)
    }
}
