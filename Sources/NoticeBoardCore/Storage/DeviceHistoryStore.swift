/// What one device made, read from the store of record: a person's "my notes" on any instance.
public protocol DeviceHistoryStore: Sendable {
    /// The device's notes, newest first (`createdAt`, then `id`), expired and hidden ones
    /// included, deleted ones left out; `before` is the last item of the previous page.
    func posts(madeBy deviceHash: String, limit: Int, before: (createdAt: Int64, id: Int64)?) async throws -> Page<DevicePost>
    /// The device's replies, newest first, hidden ones included, deleted ones left out.
    func replies(madeBy deviceHash: String, limit: Int, before: (createdAt: Int64, id: Int64)?) async throws -> Page<DeviceReply>
}

/// A note as its author sees it: hidden by moderators or not.
public struct DevicePost: Sendable, Equatable {
    public var post: Post
    public var status: PostStatus

    public init(post: Post, status: PostStatus) {
        self.post = post
        self.status = status
    }
}

/// A reply as its author sees it.
public struct DeviceReply: Sendable, Equatable {
    public var reply: Reply
    public var status: PostStatus

    public init(reply: Reply, status: PostStatus) {
        self.reply = reply
        self.status = status
    }
}
