/// Which targets a batch of changes concerns: pure matching through the targets' index, the
/// bodies are the caller's. A post still on the board is offered to every target made no later
/// than the post (a webhook does not receive the board's past) whose area and tags match it;
/// queuing is idempotent, so a post changed again (liked, replied to) is offered again
/// harmlessly. A post hidden, deleted or expired is a removal. A visible reply by someone else
/// is offered to the subscriptions of its note's device.
public enum DeliveryPlanner {
    public struct Matches: Sendable {
        public var created: [(target: DeliveryTarget, post: Post)] = []
        public var replies: [(target: DeliveryTarget, reply: Reply, post: Post)] = []
        public var removedPosts: [Int64] = []
    }

    public static func match(_ changes: [PostChange], targets: DeliveryTargetIndex, places: PlaceDirectory, now: Int64) -> Matches {
        var matches = Matches()
        var seen = Set<Int64>()
        // The newest state of each post decides; a batch may hold several changes of one post.
        for change in changes.reversed() where seen.insert(change.post.id).inserted {
            let post = change.post
            guard isLive(change, now: now) else {
                matches.removedPosts.append(post.id)
                continue
            }
            for target in targets.targets(for: post, places: places) { matches.created.append((target, post)) }
        }
        // Every reply counts, several of one post included; a note no longer on the board takes none.
        for change in changes where isLive(change, now: now) {
            guard let reply = change.reply else { continue }
            for target in targets.targets(forReply: reply, on: change.post) { matches.replies.append((target, reply, change.post)) }
        }
        matches.removedPosts.sort()
        return matches
    }

    static func isLive(_ change: PostChange, now: Int64) -> Bool {
        change.status == .visible && (change.post.expiresAt.map { $0 > now } ?? true)
    }
}
