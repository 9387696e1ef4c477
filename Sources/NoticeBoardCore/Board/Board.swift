import GeoIndex
import Synchronization

/// The board, and the routes' one door to storage: writes go to the store of record first,
/// then into the in-memory index that answers every read.
public final class Board: Sendable {
    let store: any PostStore
    /// Statuses, reports and the audit log; without one, moderation answers "unavailable".
    let moderation: (any ModerationStore)?
    /// The beacon registry; without one every beacon is unknown.
    let beacons: (any BeaconStore)?
    /// Places of record; without one no place exists.
    let placeStore: (any PlaceStore)?
    /// Likes and replies of record; without them, those routes answer "unavailable".
    let likeStore: (any LikeStore)?
    let replyStore: (any ReplyStore)?
    /// What each device made, for "my notes"; without one, those routes answer "unavailable".
    let history: (any DeviceHistoryStore)?
    /// Every place, as of the store's last revision seen: `place=` is answered from here.
    let placeDirectory = Mutex(PlaceDirectory.empty)
    /// Changes for live streams: every post this instance commits.
    public let feed = LiveFeed()
    /// Queries share it; posts, hides and the load take it alone.
    let state = ReadWriteLock(BoardState())
    private let loaded = Atomic<Bool>(false)
    /// Held while a change is applied and published.
    private let applying = Mutex(())
    /// Pulses after every change this instance commits to a post; the loader announces them to
    /// other instances, one announcement for all the changes committed while one is sent.
    let committedChanges = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

    public init(
        store: any PostStore, moderation: (any ModerationStore)? = nil, beacons: (any BeaconStore)? = nil, places: (any PlaceStore)? = nil,
        likes: (any LikeStore)? = nil, replies: (any ReplyStore)? = nil, history: (any DeviceHistoryStore)? = nil
    ) {
        self.history = history
        likeStore = likes
        replyStore = replies
        self.store = store
        self.moderation = moderation
        self.beacons = beacons
        placeStore = places
    }

    /// Whether the index has been loaded from the store.
    public var isLoaded: Bool { loaded.load(ordering: .acquiring) }

    /// Rebuilds the index from the store of record (streamed, then bulk-built).
    public func load() async throws {
        try await reloadPlaces()
        // Posts go into the table as they arrive, while the database assembles the next chunk;
        // only the tree is built at the end.
        var loading = BoardState()
        var hot: [IndexedPost] = []
        let now = Timestamp.nowMilliseconds()
        try await store.forEachVisiblePost { post, version in
            let row = loading.posts.appendLoaded(post)
            if let expiresAt = post.expiresAt, expiresAt > now { loading.expiries.add(id: post.id, at: expiresAt) }
            if version > 1 { loading.versions[post.id] = version }
            hot.append(loading.indexed(post, row: row))
        }
        loading.index = PostIndex(bulk: hot)
        loading.posts.finishLoading()
        let fresh = loading
        state.write { $0 = fresh }
        loaded.store(true, ordering: .releasing)
        hot = []
        FreedMemory.release()
    }

    public var postCount: Int { state.read { $0.index.count } }

    /// Stores a post and, once committed, makes it visible to every read on this instance.
    public func submit(
        _ submission: PostSubmission, clientHash: String?, deviceHash: String? = nil, idempotency: IdempotencyRequest?
    ) async throws -> CreateOutcome {
        var draft: PostDraft
        switch submission.location {
        case .coordinates(let lat, let lon, let floor):
            draft = submission.draft(lat: lat, lon: lon, floor: floor, beacon: nil)
        case .beacon(let reference):
            let beacon = try await locate(reference)
            draft = submission.draft(lat: beacon.lat, lon: beacon.lon, floor: beacon.floor, beacon: reference.description)
        }
        draft.deviceHash = deviceHash
        let outcome = try await store.create(draft, clientHash: clientHash, idempotency: idempotency)
        if case .created(let post) = outcome {
            reconcile(post, status: .visible, version: 1)
            committedChanges.continuation.yield()
        }
        return outcome
    }

    /// Brings the index and live streams in line with a committed status change: a post that
    /// left "visible" vanishes from every read and stream at once; a restored one comes back.
    func apply(_ change: StatusChange) {
        reconcile(change.post.post, status: change.post.status, version: change.version)
        committedChanges.continuation.yield()
    }

    /// Brings one post in line with its committed state, whichever instance changed it: a
    /// visible post is in the index, any other is not, and streams hear of every difference.
    /// A state older than the one applied already is ignored, so results that race each other
    /// (this instance's transactions and the change feed) land in commit order; seeing one
    /// state twice counts once. Events are published in the order applied.
    public func reconcile(_ post: Post, status: PostStatus, version: Int64) {
        // Changes are applied and published one at a time, in the same order; reads wait only
        // for the change itself, not for its delivery to every stream.
        applyingChange {
            guard let event = state.write({ $0.reconcile(post, status: status, version: version) }) else { return }
            feed.publish(event)
        }
    }

    /// Runs a change and its publication while no other change is applied.
    func applyingChange<T>(_ body: () -> T) -> T {
        applying.withLock { _ in body() }
    }

    /// The version of the state applied for a post, 0 if none was seen or it was forgotten
    /// (tests check ordering with it).
    public func version(of id: Int64) -> Int64 {
        state.read { $0.version(of: id) }
    }

    public func post(id: Int64) -> Post? {
        state.read { $0.post(id) }
    }

    /// The post an earlier request with this idempotency key created, `nil` if the key is unused
    /// (a replay creates nothing, so it may be answered even when the client is over its limit).
    public func replay(_ idempotency: IdempotencyRequest) async throws -> CreateOutcome? {
        try await store.existingPost(for: idempotency)
    }

    /// Whether the store of record answers now.
    public func isStoreReachable() async -> Bool {
        await store.isReachable()
    }

    /// Nearby posts; a query centred on a beacon is centred on its registered position and
    /// filtered by its floor (when it has one).
    public func nearby(_ query: NearbyQuery) async throws -> Page<NearbyPost> {
        var items: [NearbyPost] = []
        let end = try await nearbyPage(query) { state, hits in
            items = hits.map { NearbyPost(post: state.post(for: state.index.post(atSlot: $0.slot)), distance: $0.distance, bearing: $0.bearing) }
        }
        return Page(items: items, nextCursor: end.nextCursor, asOf: end.asOf)
    }

    /// The same page as `nearby(_:)`, each post handed to `write` in order as the board holds
    /// it, under the board's read lock: no `Post` or `String` is made for it, and the bytes must
    /// be copied before `write` returns. `mine` is for the device `viewer` names.
    public func nearby(
        _ query: NearbyQuery, viewer deviceHash: String?, write: (PostBytes, _ distance: Double, _ bearing: Double) -> Void
    ) async throws -> PageEnd {
        try await nearbyPage(query) { state, hits in
            let viewer = deviceHash.flatMap { state.posts.device(named: $0) }
            for hit in hits {
                state.withBytes(of: state.index.post(atSlot: hit.slot), viewer: viewer) { write($0, hit.distance, hit.bearing) }
            }
        }
    }

    /// Runs the search and hands the page's hits to `visit` under the board's read lock.
    private func nearbyPage(_ query: NearbyQuery, _ visit: (BoardState, ArraySlice<NearbyHit>) -> Void) async throws -> PageEnd {
        let place = try resolvePlace(query.place)
        let (lat, lon, floor): (Double, Double, Int?)
        switch query.center {
        case .coordinates(let pointLat, let pointLon):
            (lat, lon, floor) = (pointLat, pointLon, query.floor)
        case .beacon(let reference):
            let beacon = try await locate(reference)
            (lat, lon, floor) = (beacon.lat, beacon.lon, beacon.floor ?? query.floor)
        }
        let last = state.read { state in
            let search = NearbySearch(
                lat: lat, lon: lon, radius: query.radius, cone: query.cone, headingFilter: query.headingFilter,
                filter: state.filter(tags: query.tags, from: query.from, to: query.to, floor: floor, place: place, instant: query.instant),
                order: query.order, after: query.after, limit: query.limit + 1)
            let hits = state.index.nearby(search)
            let page = hits.prefix(query.limit)
            state.prefetchPosts(atSlots: page.map(\.slot))
            visit(state, page)
            return hits.count > query.limit ? hits[query.limit - 1].position(for: query.order) : nil
        }
        let scoredAt: Int64? = if case .popular(let instant) = query.order { instant } else { nil }
        return PageEnd(nextCursor: last.map { PageCursor.from($0, scoredAt: query.instant.milliseconds).encoded }, asOf: scoredAt)
    }

    public func browse(_ query: BrowseQuery) throws(ValidationError) -> Page<Post> {
        var items: [Post] = []
        let end = try browsePage(query) { state, found in items = found.map(state.post(for:)) }
        return Page(items: items, nextCursor: end.nextCursor, asOf: end.asOf)
    }

    /// The same page as `browse(_:)`, each post handed to `write` as `nearby(_:viewer:write:)` does.
    public func browse(_ query: BrowseQuery, viewer deviceHash: String?, write: (PostBytes) -> Void) throws(ValidationError) -> PageEnd {
        try browsePage(query) { state, found in
            let viewer = deviceHash.flatMap { state.posts.device(named: $0) }
            for indexed in found { state.withBytes(of: indexed, viewer: viewer, write) }
        }
    }

    /// Runs the search and hands the page's posts to `visit` under the board's read lock.
    private func browsePage(_ query: BrowseQuery, _ visit: (BoardState, ArraySlice<IndexedPost>) -> Void) throws(ValidationError) -> PageEnd {
        let place = try resolvePlace(query.place)
        return state.read { state in
            let search = AreaSearch(
                box: query.box,
                filter: state.filter(tags: query.tags, from: query.from, to: query.to, floor: nil, place: place, instant: query.instant),
                after: query.after, limit: query.limit + 1, popularAt: query.popular ? query.instant.milliseconds : nil,
                popularAfter: query.popularAfter)
            let found = state.index.browse(search)
            let page = found.prefix(query.limit)
            state.posts.prefetch(rows: page.map(\.payload))
            visit(state, page)
            guard found.count > query.limit else { return PageEnd(nextCursor: nil, asOf: search.popularAt) }
            let last = found[query.limit - 1]
            let next = query.popular
                ? PageCursor.popular(score: search.score(of: last), id: last.id, at: query.instant.milliseconds)
                : PageCursor.time(createdAt: last.createdAt, id: last.id)
            return PageEnd(nextCursor: next.encoded, asOf: search.popularAt)
        }
    }

    /// The matching posts in the box, grouped for a map at the query's zoom; counts sum to `total`.
    public func clusters(_ query: ClustersQuery) throws(ValidationError) -> (clusters: [Cluster], total: Int) {
        let place = try resolvePlace(query.place)
        return state.read { state in
            state.index.clusters(
                in: query.box,
                filter: state.filter(tags: query.tags, from: query.from, to: query.to, floor: nil, place: place, instant: query.instant),
                zoom: query.zoom)
        }
    }

    /// Tag counts in the box (or circle) and time range, count descending, ties by tag.
    public func tags(_ query: TagsQuery) throws(ValidationError) -> [TagCount] {
        let place = try resolvePlace(query.place)
        return state.read { state in
            let filter = state.filter(tags: [], from: query.from, to: query.to, floor: nil, place: place, instant: query.instant)
            let counts: [TagID: Int]
            if let circle = query.circle {
                // Decided by nearby's own test, so the counts match the list a chosen tag leaves.
                let search = NearbySearch(lat: circle.lat, lon: circle.lon, radius: circle.radius, filter: filter)
                let viewer = ViewerTrigonometry(lat: circle.lat)
                var inCircle: [TagID: Int] = [:]
                state.index.forEachMatchingPost(in: query.box, filter: filter) { post in
                    guard search.hit(for: post, viewer: viewer) != nil else { return }
                    inCircle[post.tag, default: 0] += 1
                }
                counts = inCircle
            } else {
                counts = state.index.tagCounts(in: query.box, filter: filter)
            }
            return counts
                .map { TagCount(tag: state.tags.name(of: $0.key), count: $0.value) }
                .sorted { $0.count > $1.count || ($0.count == $1.count && $0.tag < $1.tag) }
        }
    }
}

extension Board {
    /// A walker's view now: the nearest notes on the live board within its circle (and cone, and
    /// heading and tag filters), at most `WalkSession.viewLimit`.
    public func walkView(_ update: WalkUpdate) -> [NearbyPost] {
        state.read { state in
            let search = NearbySearch(
                lat: update.lat, lon: update.lon, radius: update.radius, cone: update.cone, headingFilter: update.headingFilter,
                filter: state.filter(tags: update.tags, from: nil, to: nil, floor: nil, instant: .now()), limit: WalkSession.viewLimit)
            return state.index.nearby(search).map {
                NearbyPost(post: state.post(for: state.index.post(atSlot: $0.slot)), distance: $0.distance, bearing: $0.bearing)
            }
        }
    }
}

extension Board {
    /// The sequences of the process's own changes whose post version the board has not
    /// reached: one lock for a page, not one a change.
    func unappliedOwnChanges(_ entries: [FeedEntry]) -> Set<Int64> {
        state.read { state in
            var unapplied: Set<Int64> = []
            for case .own(let sequence, let postId, let version) in entries where state.version(of: postId) < version {
                unapplied.insert(sequence)
            }
            return unapplied
        }
    }
}
