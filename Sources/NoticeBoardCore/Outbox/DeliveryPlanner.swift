/// Which webhooks and subscriptions a batch of changes concerns: pure matching, the bodies are
/// the caller's. A post still on the board is offered to every target made no later than the
/// post (a webhook does not receive the board's past), matching its area and tags; queuing is
/// idempotent, so a post changed again (liked, replied to) is offered again harmlessly. A post
/// hidden or deleted is a removal.
public enum DeliveryPlanner {
    public struct Matches: Sendable, Equatable {
        public var created: [(target: DeliveryTarget, post: Post)]
        public var removedPosts: [Int64]

        public static func == (left: Matches, right: Matches) -> Bool {
            left.removedPosts == right.removedPosts && left.created.map(\.target) == right.created.map(\.target)
                && left.created.map(\.post) == right.created.map(\.post)
        }
    }

    public static func match(
        _ changes: [PostChange], webhooks: [Webhook], subscriptions: [PushSubscription], places: PlaceDirectory, now: Int64
    ) -> Matches {
        var created: [(target: DeliveryTarget, post: Post)] = []
        var removed: [Int64] = []
        var seen = Set<Int64>()
        // The newest state of each post decides; a batch may hold several changes of one post.
        for change in changes.reversed() where seen.insert(change.post.id).inserted {
            let post = change.post
            guard change.status == .visible, post.expiresAt.map({ $0 > now }) ?? true else {
                removed.append(post.id)
                continue
            }
            for webhook in webhooks where webhook.createdAt <= post.createdAt && accepts(webhook.area, webhook.tags, post, places) {
                created.append((.webhook(webhook.id), post))
            }
            for subscription in subscriptions
            where subscription.createdAt <= post.createdAt && accepts(subscription.area, subscription.tags, post, places) {
                created.append((.subscription(subscription.id), post))
            }
        }
        return Matches(created: created, removedPosts: removed.sorted())
    }

    static func accepts(_ area: DeliveryArea, _ tags: [String], _ post: Post, _ places: PlaceDirectory) -> Bool {
        (tags.isEmpty || tags.contains(post.tag)) && area.contains(lat: post.lat, lon: post.lon, floor: post.floor, places: places)
    }
}
