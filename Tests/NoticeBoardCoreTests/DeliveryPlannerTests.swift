import BoardTestSupport
import GeoIndex
import NoticeBoardCore
import Testing

/// Which webhooks and push subscriptions a change reaches, against a brute-force oracle of our own
/// on random boards (cities, the antimeridian, the poles, duplicates): circles, boxes across the
/// antimeridian, places, tags, the target's creation instant, hidden and expired posts.
@Suite struct DeliveryPlannerTests {
    static let now = RandomBoard.epoch + 40 * 86_400_000

    struct Target {
        var area: DeliveryArea
        var ring: PlaceOracle.Ring?
        var tags: [String]
        var createdAt: Int64
    }

    static func oracleContains(_ target: Target, _ post: Post) -> Bool {
        guard target.tags.isEmpty || target.tags.contains(post.tag) else { return false }
        guard target.createdAt <= post.createdAt else { return false }
        switch target.area {
        case .circle(let lat, let lon, let radius): return Oracle.distance(lat, lon, post.lat, post.lon) <= radius
        case .box(let box):
            guard post.lat >= box.south, post.lat <= box.north else { return false }
            return box.west <= box.east ? (post.lon >= box.west && post.lon <= box.east) : (post.lon >= box.west || post.lon <= box.east)
        case .place: return target.ring!.contains(lat: post.lat, lon: post.lon)
        }
    }

    @Test(arguments: BoardShape.allCases) func matchesAgreeWithTheOracle(shape: BoardShape) throws {
        var rng = SeededGenerator(seed: 7 + UInt64(BoardShape.allCases.firstIndex(of: shape)!))
        let samples = RandomBoard.posts(shape, count: 400, using: &rng)
        var posts: [Post] = samples.map {
            Post(id: $0.id, lat: $0.lat, lon: $0.lon, heading: $0.heading, message: "m", tag: $0.tag, createdAt: $0.createdAt,
                 accuracy: nil, floor: nil, beacon: nil)
        }
        // Some posts expired, some hidden: removals, never created.
        for index in posts.indices where index % 17 == 0 { posts[index].expiresAt = Self.now - 1 }
        for index in posts.indices where index % 23 == 0 { posts[index].expiresAt = Self.now }
        for index in posts.indices where index % 29 == 0 { posts[index].expiresAt = Self.now + 1 }
        let hidden = Set(posts.indices.filter { $0 % 13 == 0 }.map { posts[$0].id })

        var targets: [Target] = []
        var places: [Place] = []
        // Enough targets that the index's cells at every size are used, near the poles and
        // across the antimeridian too (the shapes put posts there).
        for index in 0..<240 {
            let anchor = samples[Int.random(in: 0..<samples.count, using: &rng)]
            let tags = index % 3 == 0 ? [] : [RandomBoard.tags.randomElement(using: &rng)!]
            // Some targets made exactly at a post's instant: that post is included.
            let createdAt = index % 4 == 0 ? anchor.createdAt : RandomBoard.epoch + Int64.random(in: 0...(30 * 86_400_000), using: &rng)
            switch index % 3 {
            case 0:
                let radius = [1, 50, 100, 2000, 5000, 50_000.0, 900_000].randomElement(using: &rng)!
                targets.append(Target(area: .circle(lat: anchor.lat, lon: anchor.lon, radius: radius), ring: nil, tags: tags, createdAt: createdAt))
            case 1:
                let half = [Double.random(in: 0.001...2, using: &rng), 0, 40, 170].randomElement(using: &rng)!
                var west = anchor.lon - half, east = anchor.lon + half
                if west < -180 { west += 360 }
                if east > 180 { east -= 360 }
                let box = GeoBox(west: west, south: max(-90, anchor.lat - half), east: east, north: min(90, anchor.lat + half))
                targets.append(Target(area: .box(box), ring: nil, tags: tags, createdAt: createdAt))
            default:
                let ring = RandomRing.star(lat: max(-80, min(80, anchor.lat)), lon: anchor.lon, radius: 0.01, count: 7, convex: index % 2 == 0, using: &rng)
                guard let shape = try? PlaceShape.validated(ring) else { continue }
                let slug = "place-\(index)"
                places.append(Place(slug: slug, name: slug, shape: shape, floors: nil, description: ""))
                targets.append(Target(area: .place(slug), ring: PlaceOracle.Ring(ring), tags: tags, createdAt: createdAt))
            }
        }
        var interests = targets.enumerated().map { offset, target in
            DeliveryInterest(
                target: offset % 2 == 0 ? .webhook(Int64(offset)) : .subscription(Int64(offset)),
                listening: .area(target.area, tags: target.tags), createdAt: target.createdAt)
        }
        // Targets removed, and some replaced by themselves, on the way: the index forgets them.
        var index = DeliveryTargetIndex(interests)
        let removed = Set(interests.indices.filter { $0 % 11 == 5 })
        for offset in removed { index.remove(interests[offset].target) }
        for offset in interests.indices where offset % 7 == 3 { index.upsert(interests[offset]) }
        interests = interests.enumerated().filter { !removed.contains($0.offset) || $0.offset % 7 == 3 }.map(\.element)
        let kept = Set(interests.map(\.target))
        #expect(index.count == kept.count)
        let changes = posts.enumerated().map { offset, post in
            PostChange(sequence: Int64(offset + 1), post: post, status: hidden.contains(post.id) ? .hidden : .visible, version: 1)
        }
        let matches = DeliveryPlanner.match(changes, targets: index, places: PlaceDirectory(places: places), now: Self.now)

        var expected: Set<String> = []
        var expectedRemoved: [Int64] = []
        for post in posts {
            if hidden.contains(post.id) || (post.expiresAt.map { $0 <= Self.now } ?? false) {
                expectedRemoved.append(post.id)
                continue
            }
            for (offset, target) in targets.enumerated() where Self.oracleContains(target, post)
                && kept.contains(offset % 2 == 0 ? .webhook(Int64(offset)) : .subscription(Int64(offset)))
            {
                expected.insert("\(offset % 2 == 0 ? "w" : "s")\(offset)-\(post.id)")
            }
        }
        let got = matches.created.map { target, post -> String in
            switch target {
            case .webhook(let id): "w\(id)-\(post.id)"
            case .subscription(let id): "s\(id)-\(post.id)"
            }
        }
        #expect(got.count == Set(got).count, "a target and post matched twice")
        #expect(Set(got) == expected)
        #expect(matches.removedPosts == expectedRemoved.sorted())
        #expect(!expected.isEmpty, "the random targets reached nothing: the test would prove little")
    }

    @Test func theNewestStateOfAPostInABatchDecides() {
        let post = Post(id: 9, lat: 1, lon: 1, heading: nil, message: "m", tag: "food", createdAt: 10, accuracy: nil, floor: nil, beacon: nil)
        let hook = DeliveryInterest(target: .webhook(1), listening: .area(.circle(lat: 1, lon: 1, radius: 10), tags: []), createdAt: 10)
        let created = PostChange(sequence: 1, post: post, status: .visible, version: 1)
        let hidden = PostChange(sequence: 2, post: post, status: .hidden, version: 2)
        let thenHidden = DeliveryPlanner.match([created, hidden], targets: DeliveryTargetIndex([hook]), places: .empty, now: 20)
        #expect(thenHidden.created.isEmpty && thenHidden.removedPosts == [9])
        let restored = DeliveryPlanner.match([hidden, created], targets: DeliveryTargetIndex([hook]), places: .empty, now: 20)
        #expect(restored.created.count == 1 && restored.removedPosts.isEmpty)
        // A webhook made after the post does not receive it.
        var later = hook
        later.createdAt = 11
        #expect(DeliveryPlanner.match([created], targets: DeliveryTargetIndex([later]), places: .empty, now: 20).created.isEmpty)
    }

    @Test func aReplyReachesTheSubscriptionsOfItsNotesDeviceOnlyWhenSomeoneElseWroteIt() {
        var post = Post(id: 9, lat: 1, lon: 1, heading: nil, message: "m", tag: "food", createdAt: 10, accuracy: nil, floor: nil, beacon: nil)
        post.deviceHash = "author"
        let mine = DeliveryInterest(target: .subscription(1), listening: .replies(toDevice: "author"), createdAt: 5)
        let someoneElses = DeliveryInterest(target: .subscription(2), listening: .replies(toDevice: "other"), createdAt: 5)
        let madeLater = DeliveryInterest(target: .subscription(3), listening: .replies(toDevice: "author"), createdAt: 100)
        let index = DeliveryTargetIndex([mine, someoneElses, madeLater])
        let first = Reply(id: 1, postId: 9, message: "hi", createdAt: 20, deviceHash: "other", byAuthor: false)
        let second = Reply(id: 2, postId: 9, message: "hey", createdAt: 21, deviceHash: nil, byAuthor: false)
        let ownAnswer = Reply(id: 3, postId: 9, message: "thanks", createdAt: 22, deviceHash: "author", byAuthor: true)
        let changes = [first, second, ownAnswer].enumerated().map { offset, reply in
            PostChange(sequence: Int64(offset + 1), post: post, status: .visible, version: Int64(offset + 2), reply: reply)
        }
        let matches = DeliveryPlanner.match(changes, targets: index, places: .empty, now: 30)
        // Both replies by others, even in one batch; never the author's own, nor to a later subscription.
        #expect(matches.replies.map(\.reply.id) == [1, 2])
        #expect(matches.replies.allSatisfy { $0.target == .subscription(1) })
        // A note that left the board takes no replies.
        let hiddenChanges = changes.map { change -> PostChange in
            var hidden = change
            hidden.status = .hidden
            return hidden
        }
        #expect(DeliveryPlanner.match(hiddenChanges, targets: index, places: .empty, now: 30).replies.isEmpty)
    }

    @Test func retriesBackOffAndGiveUpAfterADay() {
        let delays = (1...20).map { RetrySchedule.delayMilliseconds(afterAttempt: $0, jitter: 0) }
        #expect(delays[0] == 5000 && delays[1] == 10_000 && delays[2] == 20_000)
        #expect(zip(delays, delays.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(delays.last == 3_600_000)
        #expect(RetrySchedule.delayMilliseconds(afterAttempt: 1, retryAfterSeconds: 30, jitter: 0) == 30_000)
        let created: Int64 = 0
        if case .retry = RetrySchedule.afterFailure("e", attempts: 3, createdAt: created, now: 3_600_000) {} else { Issue.record("gave up early") }
        if case .failed = RetrySchedule.afterFailure("e", attempts: 30, createdAt: created, now: 24 * 3_600_000) {} else {
            Issue.record("kept retrying past a day")
        }
    }

    @Test func deliveryURLs() throws {
        let url = try DeliveryURL("https://Push.Example.org:8443/a/b?c=d", field: "url")
        #expect(url.host == "push.example.org" && url.port == 8443 && url.origin == "https://push.example.org:8443" && url.isSecure)
        #expect(try DeliveryURL("http://[::1]:9/x", field: "url").host == "::1")
        #expect(try DeliveryURL("http://example.org", field: "url").origin == "http://example.org")
        for bad in ["ftp://x.org", "http://", "http://u:p@x.org/", "http://x.org:0/", "http://x.org:99999/", "http://x .org/", "https://x.org/\u{7f}", "x.org"] {
            #expect(throws: ValidationError.self, "\(bad)") { try DeliveryURL(bad, field: "url") }
        }
    }
}
