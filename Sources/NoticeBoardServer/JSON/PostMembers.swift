import NoticeBoardCore

/// The post object's members, in the contract's order: one writer for every answer that
/// carries posts, whether the post was read in place from the board or built from a store's row.
enum PostMembers {
    /// What a device's own view adds (`likedByMe`, `mine`).
    enum Viewer {
        /// No device key: neither member is written.
        case none
        case known(likedByMe: Bool, mine: Bool)
        /// `likedByMe` is not known yet (the store is asked after the board's lock is let go):
        /// its value is left out and its place returned, for `PostPageJSON` to fill in.
        case pending(mine: Bool)
    }
}

extension JSONWriter {
    /// Writes the post's members without braces; returns where a pending `likedByMe` value belongs.
    mutating func postMembers(
        _ post: PostBytes, fields: PostFields, distance: Double?, bearing: Double?, viewer: PostMembers.Viewer
    ) -> Int? {
        let before = offset
        // Every member but the first written starts with a comma.
        func member(_ name: StaticString, _ field: PostFields, _ json: inout JSONWriter) -> Bool {
            guard fields.contains(field) else { return false }
            json.key(name, first: json.offset == before)
            return true
        }
        if member("id", .id, &self) { number(post.id) }
        if member("lat", .lat, &self) { number(post.lat) }
        if member("lon", .lon, &self) { number(post.lon) }
        if member("heading", .heading, &self) { optional(post.heading) { $0.number($1) } }
        if member("message", .message, &self) { string(utf8: post.message) }
        if member("tag", .tag, &self) { string(post.tag) }
        if member("createdAt", .createdAt, &self) { timestamp(milliseconds: post.createdAt) }
        if member("accuracy", .accuracy, &self) { optional(post.accuracy) { $0.number($1) } }
        if member("floor", .floor, &self) { optional(post.floor) { $0.number($1) } }
        if member("beacon", .beacon, &self) { optional(post.beacon) { $0.string($1) } }
        if member("likeCount", .likeCount, &self) { number(post.likeCount) }
        if member("replyCount", .replyCount, &self) { number(post.replyCount) }
        if member("expiresAt", .expiresAt, &self) { optional(post.expiresAt) { $0.timestamp(milliseconds: $1) } }
        var pendingLike: Int?
        switch viewer {
        case .none:
            break
        case .known(let likedByMe, let mine):
            if member("likedByMe", .likedByMe, &self) { raw(likedByMe ? "true" : "false") }
            if member("mine", .mine, &self) { raw(mine ? "true" : "false") }
        case .pending(let mine):
            if member("likedByMe", .likedByMe, &self) { pendingLike = offset }
            if member("mine", .mine, &self) { raw(mine ? "true" : "false") }
        }
        if let distance, member("distance", .distance, &self) { number(distance) }
        if let bearing, member("bearing", .bearing, &self) { number(bearing) }
        return pendingLike
    }
}
