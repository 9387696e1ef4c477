import Hummingbird
import NoticeBoardCore

/// A page of posts, `{"posts":[…],"nextCursor":…}` (and `"asOf"` for a popular page), written
/// post by post as the board hands each one out under its read lock: the board's bytes go into
/// the answer with no `Post`, `String` or `PostJSON` made per post.
///
/// Whether the device likes a post is the like store's to say, and the store is not asked under
/// the board's lock: a liked post's `likedByMe` value is left out and its place kept, and
/// `finish` writes it in once the store has answered. Posts nobody likes are `false` at once, so
/// most pages ask nothing.
struct PostPageJSON: ~Copyable {
    private var json = JSONWriter(capacity: 16_384)
    private let fields: PostFields
    private let hasViewer: Bool
    private var written = 0
    private var pendingLikes: [(offset: Int, id: Int64)] = []

    /// `viewer`: whether the request carries a device key (then `likedByMe` and `mine` are written).
    init(fields: PostFields, viewer: Bool) {
        self.fields = fields
        hasViewer = viewer
        json.raw("{\"posts\":[")
    }

    mutating func add(_ post: PostBytes, distance: Double? = nil, bearing: Double? = nil) {
        if written > 0 { json.raw(",") }
        json.raw("{")
        let viewer: PostMembers.Viewer =
            !hasViewer ? .none : post.likeCount > 0 ? .pending(mine: post.mine) : .known(likedByMe: false, mine: post.mine)
        if let offset = json.postMembers(post, fields: fields, distance: distance, bearing: bearing, viewer: viewer) {
            pendingLikes.append((offset, post.id))
        }
        json.raw("}")
        written += 1
    }

    /// The posts whose `likedByMe` waits for the like store.
    var likeCandidates: [Int64] { pendingLikes.map(\.id) }

    /// The whole answer, `liked` (the candidates this device likes) written in.
    consuming func finish(_ end: PageEnd, liked: Set<Int64>) -> ByteBuffer {
        json.raw("]")
        json.key("nextCursor")
        json.optional(end.nextCursor) { $0.string($1) }
        if let asOf = end.asOf {
            json.key("asOf")
            json.timestamp(milliseconds: asOf)
        }
        json.raw("}")
        let bytes = json.written
        var buffer = ByteBufferAllocator().buffer(capacity: bytes.count + 5 * pendingLikes.count)
        var copied = 0
        for pending in pendingLikes {
            buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[copied..<pending.offset])))
            buffer.writeStaticString(liked.contains(pending.id) ? "true" : "false")
            copied = pending.offset
        }
        buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[copied...])))
        return buffer
    }
}
