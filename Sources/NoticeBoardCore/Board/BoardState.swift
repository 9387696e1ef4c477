import GeoIndex

/// Everything the board keeps in memory, changed only under the board's lock.
struct BoardState: Sendable {
    var index = PostIndex()
    /// Each post's fields the index does not hold, in the row the index keeps as its payload.
    var posts = PostTable()
    var tags = TagInterner()
    /// Versions above 1 of the posts present; a present post not listed is at version 1. Most
    /// posts are never changed, so this stays small.
    var versions: [Int64: Int64] = [:]
    /// Versions of posts taken out, in two generations of at most `removedPerGeneration`: a stale
    /// state arrives within moments of the newer one, so the oldest removals can be forgotten.
    var removed: [Int64: Int64] = [:]
    var removedBefore: [Int64: Int64] = [:]
    static let removedPerGeneration = 50_000
    /// When each note with a lifetime leaves the live board, soonest first: streams hear of it.
    var expiries = ExpiryQueue()
    /// Whether streams were last told each recent reply is shown (true) or gone (false): each
    /// instance hears its own changes twice, once when it commits one and once from the change feed.
    var publishedReplies = RecentMarks<Bool>()

    init() {}

    func version(of id: Int64) -> Int64 {
        versions[id] ?? removed[id] ?? removedBefore[id] ?? (index.contains(id: id) ? 1 : 0)
    }

    /// The post as the contract shows it, from the index and the table.
    func post(_ id: Int64) -> Post? {
        index.post(id: id).map(post(for:))
    }

    /// Starts loading what `post(for:)` reads of the posts at these nearby slots: a page's worth
    /// of posts then waits on memory about once, not once a post.
    func prefetchPosts(atSlots slots: [Int32]) {
        index.prefetchPosts(atSlots: slots)
        posts.prefetch(rows: slots.map(index.payload(atSlot:)))
    }

    /// The post of an index entry.
    func post(for indexed: IndexedPost) -> Post {
        let row = posts.row(at: indexed.payload)
        return Post(
            id: indexed.id, lat: indexed.lat, lon: indexed.lon, heading: indexed.heading, message: row.message,
            tag: tags.name(of: indexed.tag), createdAt: indexed.createdAt, accuracy: row.accuracy, floor: indexed.floor.map(Int.init),
            beacon: row.beacon, expiresAt: indexed.expiresAt, likeCount: Int(indexed.likes), replyCount: row.replyCount,
            deviceHash: row.deviceHash)
    }

    /// The same post as `post(for:)` gives, its message as the arena's bytes and no `Post`
    /// made; `viewer` is `PostTable.device(named:)` of the request's device (`nil`: none, or
    /// one that made no post held).
    func withBytes<R>(of indexed: IndexedPost, viewer: UInt32?, _ body: (PostBytes) throws -> R) rethrows -> R {
        try posts.withRowBytes(at: indexed.payload) { row in
            try body(PostBytes(
                id: indexed.id, lat: indexed.lat, lon: indexed.lon, heading: indexed.heading, message: row.message,
                tag: tags.name(of: indexed.tag), createdAt: indexed.createdAt, accuracy: row.accuracy, floor: indexed.floor.map(Int.init),
                beacon: row.beacon, expiresAt: indexed.expiresAt, likeCount: Int(indexed.likes), replyCount: row.replyCount,
                mine: viewer != nil && row.device == viewer))
        }
    }

    /// Applies a post's state if it is newer than the one known; returns what streams must hear.
    mutating func reconcile(_ post: Post, status: PostStatus, version: Int64) -> LiveEvent? {
        guard version > self.version(of: post.id) else { return nil }
        let current = index.post(id: post.id)
        let present = current != nil
        if status == .visible {
            versions[post.id] = version > 1 ? version : nil
            removed[post.id] = nil
            removedBefore[post.id] = nil
        } else {
            versions[post.id] = nil
            if removed.count >= Self.removedPerGeneration { (removedBefore, removed) = (removed, [:]) }
            removed[post.id] = version
        }
        switch (status == .visible, present) {
        case (true, true):
            // Likes and replies change a visible post in place; streams hear of replies apart.
            if current?.likes != Int32(clamping: post.likeCount) { index.setLikes(id: post.id, to: Int32(clamping: post.likeCount)) }
            if let row = current?.payload { posts.update(at: row, post) }
            return nil
        case (true, false):
            insert(post)
            // A restored note whose lifetime already ended goes back into the history only:
            // live streams never saw it end, so they are not told it came.
            if let expiresAt = post.expiresAt {
                guard expiresAt > Timestamp.nowMilliseconds() else { return nil }
                expiries.add(id: post.id, at: expiresAt)
            }
            return .post(post)
        case (false, true):
            remove(id: post.id)
            return .remove(id: post.id, lat: post.lat, lon: post.lon)
        default:
            return nil
        }
    }

    mutating func insert(_ post: Post) {
        if let replaced = index.post(id: post.id) { posts.remove(at: replaced.payload) }
        index.insert(indexed(post, row: posts.add(post)))
    }

    mutating func remove(id: Int64) {
        if let removed = index.remove(id: id) { posts.remove(at: removed.payload) }
    }

    mutating func indexed(_ post: Post, row: Int32) -> IndexedPost {
        IndexedPost(
            id: post.id, lat: post.lat, lon: post.lon, heading: post.heading, tag: tags.intern(post.tag),
            createdAt: post.createdAt, floor: post.floor.map { Int16($0) }, expiresAt: post.expiresAt,
            likes: Int32(clamping: post.likeCount), payload: row)
    }

    /// An index filter; an empty `tags` list means every tag. Tags never stored match nothing.
    /// A place adds its polygon and floors. The board is seen at `instant`: notes expired by
    /// then are left out, and with `createdBy`, so are notes made after it (the history view).
    func filter(
        tags names: [String], from: Int64?, to: Int64?, floor: Int?, place: Place? = nil, instant: BoardInstant?
    ) -> PostFilter {
        let tagIDs: Set<TagID>? = names.isEmpty ? nil : Set(names.compactMap { tags.id(of: $0) })
        var before = to
        if let instant, instant.limitsCreation {
            let (after, overflow) = instant.milliseconds.addingReportingOverflow(1)
            if !overflow { before = min(before ?? after, after) }
        }
        return PostFilter(
            tags: tagIDs, createdFrom: from, createdBefore: before, floor: floor.map { Int16(clamping: $0) }, floors: place?.floorRange,
            place: place?.shape, aliveAt: instant?.milliseconds)
    }
}
