import BoardTestSupport
import GeoIndex
import Testing

/// The index structures under test: each is held to the same oracle.
enum IndexKind: String, CaseIterable, Sendable {
    case grid
    /// The R-tree grown by inserts (splits).
    case rtreeInserted
    /// The R-tree bulk-loaded (sort-tile-recursive).
    case rtreeBulk

    func make(_ posts: [IndexedPost]) -> any SpatialIndex {
        switch self {
        case .grid: GridIndex(bulk: posts)
        case .rtreeInserted: posts.reduce(into: RTreeIndex()) { $0.insert($1) }
        case .rtreeBulk: RTreeIndex(bulk: posts)
        }
    }
}

/// Every query shape against the brute-force oracle on seeded random data, for every index
/// structure. A failure prints its seed; `NOTICEBOARD_TEST_SEED=<seed> swift test` replays it.
@Suite struct IndexConformanceTests {
    /// Seeds of past failures and hand-picked hard cases, replayed on every run.
    static let regressionSeeds: [UInt64] = [1, 42, 20_261_121]
    static let runSeed: UInt64 = {
        let seed = SeededGenerator.runSeed()
        print("IndexConformanceTests seed: \(seed) (replay with NOTICEBOARD_TEST_SEED=\(seed))")
        return seed
    }()

    struct Fixture {
        var samples: [SamplePost]
        var index: any SpatialIndex
        var tags = TagInterner()

        init(_ samples: [SamplePost], kind: IndexKind = .rtreeBulk) {
            self.samples = samples
            var interner = TagInterner()
            let posts = samples.map { Fixture.indexed($0, &interner) }
            tags = interner
            index = kind.make(posts)
        }

        static func indexed(_ sample: SamplePost, _ tags: inout TagInterner) -> IndexedPost {
            IndexedPost(
                id: sample.id, lat: sample.lat, lon: sample.lon, heading: sample.heading, tag: tags.intern(sample.tag),
                createdAt: sample.createdAt, floor: sample.floor.map { Int16($0) })
        }

        func filter(tags names: Set<String>?, from: Int64?, to: Int64?, floor: Int?) -> PostFilter {
            PostFilter(
                tags: names.map { Set($0.compactMap { tags.id(of: $0) }) }, createdFrom: from, createdBefore: to,
                floor: floor.map { Int16($0) })
        }
    }

    static func randomNearby(_ samples: [SamplePost], _ rng: inout SeededGenerator) -> Oracle.Nearby {
        let viewer = RandomBoard.viewer(near: samples, using: &rng)
        var q = Oracle.Nearby(lat: viewer.lat, lon: viewer.lon, radius: [1, 50, 200, 1000, 5000, 50_000].randomElement(using: &rng)!)
        if Int.random(in: 0..<3, using: &rng) == 0 {
            q.facing = Double(Int.random(in: 0..<360, using: &rng))
            q.fov = [1, 60, 90, 180, 359, 360].randomElement(using: &rng)!
            q.accuracy = [0, 10, 100].randomElement(using: &rng)!
        }
        if Int.random(in: 0..<3, using: &rng) == 0 {
            q.heading = Double(Int.random(in: 0..<360, using: &rng))
            q.tolerance = [0, 10, 45, 180].randomElement(using: &rng)!
        }
        if Int.random(in: 0..<3, using: &rng) == 0 {
            q.tags = Set((0..<Int.random(in: 1...2, using: &rng)).map { _ in
                (RandomBoard.tags + ["never-used"]).randomElement(using: &rng)!
            })
        }
        if Int.random(in: 0..<3, using: &rng) == 0 {
            let a = RandomBoard.epoch + Int64.random(in: 0..<(30 * 86_400_000), using: &rng)
            q.from = a
            q.to = a + Int64.random(in: 0..<(15 * 86_400_000), using: &rng)
        }
        if Int.random(in: 0..<4, using: &rng) == 0 { q.floor = Int.random(in: -2...5, using: &rng) }
        q.newest = Bool.random(using: &rng)
        return q
    }

    /// Pages through a nearby query and returns all hits in order.
    static func pageThrough(_ fixture: Fixture, _ q: Oracle.Nearby, limit: Int) -> [NearbyHit] {
        let order: NearbySearch.Order = q.newest ? .newest : .distance
        var search = NearbySearch(
            lat: q.lat, lon: q.lon, radius: q.radius,
            cone: q.facing.map { .init(facing: $0, fov: q.fov, accuracy: q.accuracy) },
            headingFilter: q.heading.map { .init(heading: $0, tolerance: q.tolerance) },
            filter: fixture.filter(tags: q.tags, from: q.from, to: q.to, floor: q.floor), order: order, limit: limit)
        var all: [NearbyHit] = []
        while true {
            let page = fixture.index.nearby(search)
            all += page
            guard page.count == limit, let last = page.last else { return all }
            // More than every post means the cursor does not advance: paging must end.
            guard all.count <= fixture.samples.count else {
                Issue.record("nearby paging does not end")
                return all
            }
            search.after = last.position(for: order)
        }
    }

    @Test(arguments: IndexKind.allCases, BoardShape.allCases)
    func nearbyEqualsTheOracle(kind: IndexKind, shape: BoardShape) {
        for seed in Self.regressionSeeds + [Self.runSeed] {
            var rng = SeededGenerator(seed: seed)
            let fixture = Fixture(RandomBoard.posts(shape, count: 1500, using: &rng), kind: kind)
            for _ in 0..<100 {
                let q = Self.randomNearby(fixture.samples, &rng)
                let expected = Oracle.nearby(fixture.samples, q)
                let got = Self.pageThrough(fixture, q, limit: Self.pageSize(for: expected.count, &rng))
                #expect(got.map(\.id) == expected.map(\.id), "\(kind) seed \(seed) shape \(shape) query \(q)")
                #expect(got.map(\.distance) == expected.map(\.distance), "seed \(seed)")
                #expect(got.map(\.bearing) == expected.map(\.bearing), "seed \(seed)")
                if got.map(\.id) != expected.map(\.id) { return }
            }
        }
    }

    @Test(arguments: IndexKind.allCases, BoardShape.allCases)
    func browseEqualsTheOracle(kind: IndexKind, shape: BoardShape) {
        for seed in Self.regressionSeeds + [Self.runSeed] {
            var rng = SeededGenerator(seed: seed)
            let fixture = Fixture(RandomBoard.posts(shape, count: 1500, using: &rng), kind: kind)
            for _ in 0..<60 {
                let box = Self.randomBox(near: fixture.samples, &rng)
                let tags: Set<String>? = Bool.random(using: &rng) ? nil : [RandomBoard.tags.randomElement(using: &rng)!]
                let expected = Oracle.browse(fixture.samples, west: box.west, south: box.south, east: box.east, north: box.north, tags: tags)
                let limit = Self.pageSize(for: expected.count, &rng)
                var search = AreaSearch(box: box, filter: fixture.filter(tags: tags, from: nil, to: nil, floor: nil), limit: limit)
                var got: [Int64] = []
                while true {
                    let page = fixture.index.browse(search)
                    got += page.map(\.id)
                    guard page.count == limit, let last = page.last else { break }
                    guard got.count <= fixture.samples.count else {
                        Issue.record("browse paging does not end")
                        break
                    }
                    search.after = (last.createdAt, last.id)
                }
                #expect(got == expected.map(\.id), "\(kind) seed \(seed) shape \(shape) box \(box)")
                let counts = fixture.index.tagCounts(in: box, filter: .all)
                let expectedCounts = Dictionary(
                    grouping: Oracle.browse(fixture.samples, west: box.west, south: box.south, east: box.east, north: box.north), by: \.tag
                ).mapValues(\.count)
                #expect(Dictionary(uniqueKeysWithValues: counts.map { (fixture.tags.name(of: $0.key), $0.value) }) == expectedCounts)
            }
        }
    }

    /// Small pages where results are few, so paging is exercised without a quadratic walk.
    static func pageSize(for resultCount: Int, _ rng: inout SeededGenerator) -> Int {
        let sizes = resultCount <= 40 ? [1, 3, 50] : [max(7, resultCount / 8), 500]
        return sizes.randomElement(using: &rng)!
    }

    static func randomBox(near samples: [SamplePost], _ rng: inout SeededGenerator) -> GeoBox {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: return .world
        case 1:  // crossing the antimeridian
            return GeoBox(west: Double.random(in: 170...180, using: &rng), south: -5, east: Double.random(in: -180...(-170), using: &rng), north: 5)
        case 2:  // naming the meridian by its other name
            return GeoBox(west: -180, south: -2, east: Double.random(in: -180...(-179.9), using: &rng), north: 2)
        default:
            let centre = RandomBoard.viewer(near: samples, using: &rng)
            let size = [0.001, 0.05, 1, 30].randomElement(using: &rng)!
            var west = centre.lon - size, east = centre.lon + size
            if west < -180 { west += 360 }
            if east > 180 { east -= 360 }
            return GeoBox(west: west, south: max(-90, centre.lat - size), east: east, north: min(90, centre.lat + size))
        }
    }

    @Test(arguments: IndexKind.allCases)
    func removedPostsAreNeverFound(kind: IndexKind) {
        var rng = SeededGenerator(seed: 7)
        var fixture = Fixture(RandomBoard.posts(.duplicates, count: 400, using: &rng), kind: kind)
        let removed = Set(fixture.samples.filter { $0.id % 3 == 0 }.map(\.id))
        for id in removed { #expect(fixture.index.remove(id: id) != nil) }
        #expect(fixture.index.remove(id: 999_999) == nil)
        fixture.samples.removeAll { removed.contains($0.id) }
        #expect(fixture.index.count == fixture.samples.count)
        for sample in fixture.samples.prefix(20) {
            let q = Oracle.Nearby(lat: sample.lat, lon: sample.lon, radius: 10)
            #expect(Self.pageThrough(fixture, q, limit: 1000).map(\.id) == Oracle.nearby(fixture.samples, q).map(\.id))
        }
    }

    @Test(arguments: IndexKind.allCases)
    func radiusBoundaryIsInclusive(kind: IndexKind) {
        let post = SamplePost(id: 1, lat: 10, lon: 20, heading: nil, tag: "food", createdAt: 0, floor: nil)
        let fixture = Fixture([post], kind: kind)
        let exact = Geodesy.distance(lat1: 10, lon1: 20.001, lat2: 10, lon2: 20)
        var q = Oracle.Nearby(lat: 10, lon: 20.001, radius: exact)
        #expect(Self.pageThrough(fixture, q, limit: 5).map(\.id) == [1])
        q.radius = exact.nextDown
        #expect(Self.pageThrough(fixture, q, limit: 5).isEmpty)
    }

    @Test(arguments: IndexKind.allCases)
    func searchesOverAPoleFindPostsOnEverySide(kind: IndexKind) {
        var rng = SeededGenerator(seed: 99)
        let samples = (0..<360).map { i in
            SamplePost(id: Int64(i + 1), lat: 89.99, lon: Double(i) - 180, heading: nil, tag: "food", createdAt: Int64(i), floor: nil)
        }
        let fixture = Fixture(samples, kind: kind)
        let q = Oracle.Nearby(lat: 90, lon: Double.random(in: -180...180, using: &rng), radius: 1200)
        let got = Self.pageThrough(fixture, q, limit: 50)
        #expect(got.count == 360)
        #expect(got.map(\.id) == Oracle.nearby(samples, q).map(\.id))
    }

    /// Posts exactly on the cone's edges (due north and due east of the viewer, with the cone
    /// spanning 0°...90°) pass, however far, and whole nodes of them are never skipped; posts
    /// just outside the edges do not.
    @Test(arguments: IndexKind.allCases)
    func postsOnTheConeEdgesPass(kind: IndexKind) {
        var samples: [SamplePost] = []
        for step in 1...400 {
            let offset = Double(step) * 0.0001
            samples.append(SamplePost(id: Int64(4 * step), lat: 10 + offset, lon: 20, heading: nil, tag: "food", createdAt: 0, floor: nil))
            samples.append(SamplePost(id: Int64(4 * step + 1), lat: 10, lon: 20 + offset, heading: nil, tag: "food", createdAt: 0, floor: nil))
            samples.append(SamplePost(id: Int64(4 * step + 2), lat: 10 + offset, lon: 19.9999, heading: nil, tag: "food", createdAt: 0, floor: nil))
            samples.append(SamplePost(id: Int64(4 * step + 3), lat: 9.9999, lon: 20 + offset, heading: nil, tag: "food", createdAt: 0, floor: nil))
        }
        let fixture = Fixture(samples, kind: kind)
        var q = Oracle.Nearby(lat: 10, lon: 20, radius: 50_000)
        (q.facing, q.fov, q.accuracy) = (45, 90, 0)
        let expected = Oracle.nearby(samples, q).map(\.id)
        #expect(Self.pageThrough(fixture, q, limit: 500).map(\.id) == expected)
        // Due north passes at every distance; due east only while the parallel's bearing is
        // inside 90° (it curves away, so the oracle decides which).
        #expect(Set(expected).isSuperset(of: (1...400).map { Int64(4 * $0) }))
        #expect(!expected.contains { $0 % 4 == 2 })
    }
}
