import BoardTestSupport
import Foundation
import GeoIndex
import Testing

/// Expiry, the board at an instant (`asOf`) and the popular order against the brute-force
/// oracle, for every index structure and data shape: exact instants (at an expiry, a
/// millisecond either side, at a creation), pages concatenated, likes changing between pages.
@Suite struct LifetimeAndPopularTests {
    static let seeds: [UInt64] = [3, 2026, IndexConformanceTests.runSeed]

    struct Board {
        var samples: [SamplePost]
        var expiries: [Int64: Int64]
        var likes: [Int64: Int32]
        var tags = TagInterner()
        var index: any SpatialIndex

        init(_ shape: BoardShape, kind: IndexKind, count: Int, rng: inout SeededGenerator) {
            samples = RandomBoard.posts(shape, count: count, using: &rng)
            expiries = LifetimeOracle.expiries(for: samples, using: &rng)
            likes = LifetimeOracle.likes(for: samples, using: &rng)
            var interner = TagInterner()
            let posts = samples.map { [expiries, likes] sample in
                IndexedPost(
                    id: sample.id, lat: sample.lat, lon: sample.lon, heading: sample.heading, tag: interner.intern(sample.tag),
                    createdAt: sample.createdAt, floor: sample.floor.map { Int16($0) }, expiresAt: expiries[sample.id],
                    likes: likes[sample.id] ?? 0)
            }
            tags = interner
            index = kind.make(posts)
        }

        /// An instant to look at: an expiry or a creation exactly, a millisecond off, or any time.
        func instant(_ rng: inout SeededGenerator) -> Int64 {
            let base: Int64
            switch Int.random(in: 0..<4, using: &rng) {
            case 0 where !expiries.isEmpty: base = expiries.values.randomElement(using: &rng)!
            case 1: base = samples.randomElement(using: &rng)!.createdAt
            default: base = RandomBoard.epoch + Int64.random(in: -86_400_000..<(32 * 86_400_000), using: &rng)
            }
            return base + [-1, 0, 0, 1].randomElement(using: &rng)!
        }

        func filter(at instant: Int64, limitsCreation: Bool) -> PostFilter {
            PostFilter(createdBefore: limitsCreation ? instant + 1 : nil, aliveAt: instant)
        }

        func shown(at instant: Int64, limitsCreation: Bool) -> [SamplePost] {
            samples.filter {
                LifetimeOracle.shows(createdAt: $0.createdAt, expiresAt: expiries[$0.id], at: instant, limitsCreation: limitsCreation)
            }
        }

        func score(_ id: Int64, createdAt: Int64, at instant: Int64) -> Double {
            LifetimeOracle.score(likes: likes[id] ?? 0, createdAt: createdAt, at: instant)
        }
    }

    @Test(arguments: IndexKind.allCases, BoardShape.allCases)
    func nearbyAtAnInstantInEveryOrderEqualsTheOracle(kind: IndexKind, shape: BoardShape) {
        for seed in Self.seeds {
            var rng = SeededGenerator(seed: seed)
            let board = Board(shape, kind: kind, count: 1200, rng: &rng)
            for _ in 0..<60 {
                let instant = board.instant(&rng)
                let limitsCreation = Bool.random(using: &rng)
                var q = IndexConformanceTests.randomNearby(board.samples, &rng)
                q.newest = false
                let hits = Oracle.nearby(board.shown(at: instant, limitsCreation: limitsCreation), q)
                let byId = Dictionary(uniqueKeysWithValues: board.samples.map { ($0.id, $0) })
                for order in [NearbySearch.Order.distance, .newest, .popular(at: instant)] {
                    var expected = hits
                    switch order {
                    case .distance: break
                    case .newest: expected.sort { $0.createdAt != $1.createdAt ? $0.createdAt > $1.createdAt : $0.id > $1.id }
                    case .popular:
                        expected.sort {
                            LifetimeOracle.popularFirst(
                                (board.score($0.id, createdAt: byId[$0.id]!.createdAt, at: instant), $0.id),
                                (board.score($1.id, createdAt: byId[$1.id]!.createdAt, at: instant), $1.id))
                        }
                    }
                    let limit = IndexConformanceTests.pageSize(for: expected.count, &rng)
                    var search = NearbySearch(
                        lat: q.lat, lon: q.lon, radius: q.radius, cone: q.facing.map { .init(facing: $0, fov: q.fov, accuracy: q.accuracy) },
                        headingFilter: q.heading.map { .init(heading: $0, tolerance: q.tolerance) },
                        filter: {
                            var filter = board.filter(at: instant, limitsCreation: limitsCreation)
                            filter.tags = q.tags.map { Set($0.compactMap { board.tags.id(of: $0) }) }
                            (filter.createdFrom, filter.floor) = (q.from, q.floor.map { Int16($0) })
                            if let to = q.to { filter.createdBefore = min(filter.createdBefore ?? to, to) }
                            return filter
                        }(), order: order, limit: limit)
                    var got: [NearbyHit] = []
                    while true {
                        let page = board.index.nearby(search)
                        got += page
                        guard page.count == limit, let last = page.last, got.count <= board.samples.count else { break }
                        search.after = last.position(for: order)
                    }
                    #expect(got.map(\.id) == expected.map(\.id), "\(kind) \(shape) seed \(seed) \(order) at \(instant) query \(q)")
                    #expect(got.map(\.distance) == expected.map(\.distance), "seed \(seed)")
                    if got.map(\.id) != expected.map(\.id) { return }
                }
            }
        }
    }

    @Test(arguments: IndexKind.allCases, BoardShape.allCases)
    func browseCountsAndClustersAtAnInstantEqualTheOracle(kind: IndexKind, shape: BoardShape) {
        for seed in Self.seeds {
            var rng = SeededGenerator(seed: seed)
            let board = Board(shape, kind: kind, count: 1200, rng: &rng)
            for _ in 0..<40 {
                let instant = board.instant(&rng)
                let limitsCreation = Bool.random(using: &rng)
                let box = IndexConformanceTests.randomBox(near: board.samples, &rng)
                let inBox = Oracle.browse(
                    board.shown(at: instant, limitsCreation: limitsCreation), west: box.west, south: box.south, east: box.east, north: box.north)
                let filter = board.filter(at: instant, limitsCreation: limitsCreation)
                #expect(board.index.count(in: box, filter: filter) == inBox.count, "\(kind) \(shape) seed \(seed)")
                #expect(board.index.clusters(in: box, filter: filter, zoom: Int.random(in: 0...12, using: &rng)).total == inBox.count)
                let counts = board.index.tagCounts(in: box, filter: filter)
                #expect(
                    Dictionary(uniqueKeysWithValues: counts.map { (board.tags.name(of: $0.key), $0.value) })
                        == Dictionary(grouping: inBox, by: \.tag).mapValues(\.count))
                for popular in [false, true] {
                    let expected = popular
                        ? inBox.sorted {
                            LifetimeOracle.popularFirst(
                                (board.score($0.id, createdAt: $0.createdAt, at: instant), $0.id), (board.score($1.id, createdAt: $1.createdAt, at: instant), $1.id))
                        }
                        : inBox
                    let limit = IndexConformanceTests.pageSize(for: expected.count, &rng)
                    var search = AreaSearch(box: box, filter: filter, limit: limit, popularAt: popular ? instant : nil)
                    var got: [Int64] = []
                    while true {
                        let page = board.index.browse(search)
                        got += page.map(\.id)
                        guard page.count == limit, let last = page.last, got.count <= board.samples.count else { break }
                        search.after = (last.createdAt, last.id)
                        search.popularAfter = (search.score(of: last), last.id)
                    }
                    #expect(got == expected.map(\.id), "\(kind) \(shape) seed \(seed) popular \(popular) at \(instant) box \(box)")
                }
            }
        }
    }

    /// Likes rise and fall between pages: each later page holds exactly the posts that come after
    /// the cursor under the counts it is read with, and the node bounds stay upper bounds.
    @Test(arguments: IndexKind.allCases)
    func likesChangingBetweenPagesMoveOnlyWhatLaterPagesSee(kind: IndexKind) {
        for seed in Self.seeds {
            var rng = SeededGenerator(seed: seed)
            var board = Board(.cities, kind: kind, count: 1500, rng: &rng)
            let instant = RandomBoard.epoch + 31 * 86_400_000
            let centre = board.samples[0]
            let radius = 5000.0
            let q = Oracle.Nearby(lat: centre.lat, lon: centre.lon, radius: radius)
            var search = NearbySearch(
                lat: centre.lat, lon: centre.lon, radius: radius, filter: board.filter(at: instant, limitsCreation: true),
                order: .popular(at: instant), limit: 20)
            var seen: Set<Int64> = []
            for _ in 0..<6 {
                let shown = board.shown(at: instant, limitsCreation: true)
                let createdAt = Dictionary(uniqueKeysWithValues: shown.map { ($0.id, $0.createdAt) })
                var expected = Oracle.nearby(shown, q).map { (score: board.score($0.id, createdAt: $0.createdAt, at: instant), id: $0.id) }
                if case .popular(let s, let id)? = search.after {
                    expected = expected.filter { $0.score < s || ($0.score == s && $0.id < id) }
                }
                expected.sort(by: LifetimeOracle.popularFirst)
                let page = board.index.nearby(search)
                #expect(page.map(\.id) == expected.prefix(20).map(\.id), "\(kind) seed \(seed)")
                #expect(page.allSatisfy { $0.score == board.score($0.id, createdAt: createdAt[$0.id]!, at: instant) })
                seen.formUnion(page.map(\.id))
                guard let last = page.last else { break }
                search.after = last.position(for: search.order)
                // Some posts gain many likes, some lose theirs, before the next page is read.
                for _ in 0..<30 {
                    let id = board.samples.randomElement(using: &rng)!.id
                    let count = Bool.random(using: &rng) ? Int32.random(in: 0...2000, using: &rng) : 0
                    board.likes[id] = count
                    let stored = board.index.setLikes(id: id, to: count)
                    #expect(stored)
                }
                if let tree = board.index as? RTreeIndex { #expect(tree.invariantViolations().isEmpty) }
            }
            #expect(!seen.isEmpty)
            let unknown = board.index.setLikes(id: 999_999_999, to: 1)
            #expect(!unknown)
        }
    }

    /// A note is on the board until the millisecond before its expiry, and gone from that one on.
    @Test func expiryExactlyAtItsInstant() {
        let created = RandomBoard.epoch
        let post = IndexedPost(id: 1, lat: 10, lon: 20, heading: nil, tag: 0, createdAt: created, floor: nil, expiresAt: created + 120_000)
        for kind in IndexKind.allCases {
            let index = kind.make([post])
            for (instant, shown) in [(created + 119_999, true), (created + 120_000, false), (created + 120_001, false), (created, true), (created - 1, true)] {
                let search = NearbySearch(lat: 10, lon: 20, radius: 10, filter: PostFilter(aliveAt: instant))
                #expect(index.nearby(search).map(\.id) == (shown ? [1] : []), "\(kind) at +\(instant - created) ms")
            }
            // Seen as of one millisecond before it was made, it is not there yet.
            let before = NearbySearch(lat: 10, lon: 20, radius: 10, filter: PostFilter(createdBefore: created, aliveAt: created - 1))
            #expect(index.nearby(before).isEmpty)
        }
    }
}
