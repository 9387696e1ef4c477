import GeoIndex
import NoticeBoardCore

/// The post object of the contract; optional fields are written as `null`, never left out.
struct PostJSON: Encodable {
    var post: Post
    var distance: Double?
    var bearing: Double?
    /// For moderators: status, distinct reporters, client pseudonym.
    var moderation: ModeratedPost?
    /// The members written (`fields=`); the contract's default is all of them.
    var fields = PostFields.all
    /// For a request with a device key: whether that device likes the post, and made it.
    var viewer: ViewerMarks?
    /// For its author's own list: `"status": "hidden"` on a note moderators hid.
    var hiddenForAuthor = false

    init(post: Post, distance: Double? = nil, bearing: Double? = nil, fields: PostFields = .all) {
        (self.post, self.distance, self.bearing, self.fields) = (post, distance, bearing, fields)
    }

    init(moderated: ModeratedPost) {
        post = moderated.post
        moderation = moderated
    }

    enum CodingKeys: String, CodingKey {
        case distance, bearing, status, reportCount, clientId, likedByMe, mine
    }

    func encode(to encoder: any Encoder) throws {
        try post.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let viewer {
            try container.encode(viewer.likedByMe, forKey: .likedByMe)
            try container.encode(viewer.mine, forKey: .mine)
        }
        try container.encodeIfPresent(distance, forKey: .distance)
        try container.encodeIfPresent(bearing, forKey: .bearing)
        if hiddenForAuthor, moderation == nil { try container.encode(PostStatus.hidden.rawValue, forKey: .status) }
        if let moderation {
            try container.encode(moderation.status.rawValue, forKey: .status)
            try container.encode(moderation.reportCount, forKey: .reportCount)
            try container.encode(moderation.clientId, forKey: .clientId)
        }
    }
}

/// A page: `{"<items key>": [...], "nextCursor": "..." | null}` (`posts`, `entries`, …).
struct PageJSON<Item: Encodable>: Encodable {
    var itemsKey: String
    var items: [Item]
    var nextCursor: String?
    /// The instant a popular page was scored at.
    var asOf: Int64?

    static func posts(_ posts: [PostJSON], nextCursor: String?) -> PageJSON<PostJSON> {
        PageJSON<PostJSON>(itemsKey: "posts", items: posts, nextCursor: nextCursor)
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(items, forKey: Key(stringValue: itemsKey))
        try container.encode(nextCursor, forKey: Key(stringValue: "nextCursor"))
        if let asOf { try container.encode(Timestamp.format(milliseconds: asOf), forKey: Key(stringValue: "asOf")) }
    }
}

struct TagCountsJSON: Encodable {
    struct Entry: Encodable {
        var tag: String
        var count: Int
    }
    var tags: [Entry]
}

/// `{"clusters": [{"lat", "lon", "count", "postId"?}], "total": N}`.
struct ClustersJSON: Encodable {
    struct Entry: Encodable {
        var lat: Double
        var lon: Double
        var count: Int
        var postId: Int64?

        init(_ cluster: Cluster) {
            (lat, lon, count, postId) = (cluster.lat, cluster.lon, cluster.count, cluster.postId)
        }
    }
    var clusters: [Entry]
    var total: Int
}
