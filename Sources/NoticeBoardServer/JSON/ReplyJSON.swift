import NoticeBoardCore

/// A reply: `{"id", "postId", "message", "createdAt", "byAuthor"}`, and `mine` for a device's
/// request; moderators also see `status`, `reportCount` and `clientId`.
struct ReplyJSON: Encodable {
    var reply: Reply
    var mine: Bool?
    var moderation: ModeratedReply?
    /// On streams: the note's visible replies now, so a page keeps its count without asking.
    var replyCount: Int?
    /// For its author's own list: `"status": "hidden"` on a reply moderators hid.
    var hiddenForAuthor = false

    init(_ reply: Reply, deviceHash: String? = nil) {
        self.reply = reply
        mine = deviceHash.map { reply.deviceHash == $0 }
    }

    init(moderated: ModeratedReply) {
        reply = moderated.reply
        moderation = moderated
    }

    enum CodingKeys: String, CodingKey { case id, postId, message, createdAt, byAuthor, mine, status, reportCount, clientId, replyCount }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reply.id, forKey: .id)
        try container.encode(reply.postId, forKey: .postId)
        try container.encode(reply.message, forKey: .message)
        try container.encode(Timestamp.format(milliseconds: reply.createdAt), forKey: .createdAt)
        try container.encode(reply.byAuthor, forKey: .byAuthor)
        try container.encodeIfPresent(mine, forKey: .mine)
        try container.encodeIfPresent(replyCount, forKey: .replyCount)
        if hiddenForAuthor, moderation == nil { try container.encode(PostStatus.hidden.rawValue, forKey: .status) }
        if let moderation {
            try container.encode(moderation.status.rawValue, forKey: .status)
            try container.encode(moderation.reportCount, forKey: .reportCount)
            try container.encode(moderation.clientId, forKey: .clientId)
        }
    }
}

/// `{"likeCount", "likedByMe"}`.
struct LikeJSON: Encodable {
    var likeCount: Int
    var likedByMe: Bool
}
