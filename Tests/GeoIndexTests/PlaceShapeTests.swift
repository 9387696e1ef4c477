import Foundation
import BoardTestSupport
import GeoIndex
import Testing

/// Places: the shape's own tests against the brute-force oracle, its validation, and every
/// index query filtered by a place, for every index structure.
@Suite struct PlaceShapeTests {
    typealias Ring = [(lon: Double, lat: Double)]

    /// The kinds of ring the issue names, each around a random spot (some across ±180).
    static func rings(_ rng: inout SeededGenerator) -> [(name: String, ring: Ring)] {
        let lat = Double.random(in: -60...60, using: &rng), lon = Double.random(in: -179...179, using: &rng)
        return [
            ("convex", RandomRing.star(lat: lat, lon: lon, radius: 0.01, count: 12, convex: true, using: &rng)),
            ("concave", RandomRing.star(lat: lat, lon: lon, radius: 0.02, count: 200, convex: false, using: &rng)),
            ("spiral", RandomRing.spiral(lat: lat, lon: lon, count: 1000)),
            ("antimeridian", RandomRing.star(lat: lat, lon: 179.995, radius: 0.01, count: 40, convex: false, using: &rng)),
            ("sliver", RandomRing.sliver(lat: lat, lon: lon, length: 0.02)),
            ("near the pole", RandomRing.star(lat: 89.9, lon: lon, radius: 0.05, count: 30, convex: false, using: &rng)),
            ("square", [(lon, lat), (lon + 0.01, lat), (lon + 0.01, lat + 0.01), (lon, lat + 0.01)].map { (RandomRing.wrapped($0.0), RandomRing.wrapped($0.1)) }),
        ]
    }

    /// Points to test: on the boundary, a unit beside it, and scattered over the ring's box.
    static func probes(_ ring: Ring, _ rng: inout SeededGenerator) -> [(lat: Double, lon: Double)] {
        var all = RandomRing.boundaryPoints(ring, perEdge: 3)
        all.shuffle(using: &rng)
        let boundary = Array(all.prefix(600))
        var beside: [(lat: Double, lon: Double)] = []
        for p in boundary.prefix(200) {
            for (dLat, dLon) in [(1e-7, 0.0), (-1e-7, 0.0), (0.0, 1e-7), (0.0, -1e-7)] where abs(p.lat + dLat) <= 90 {
                beside.append((RandomRing.wrapped(p.lat + dLat), RandomRing.wrapped(p.lon + dLon)))
            }
        }
        let lats = ring.map(\.lat), lons = ring.map(\.lon)
        let crossing = lons.max()! - lons.min()! > 180
        let scattered = (0..<800).map { _ -> (lat: Double, lon: Double) in
            let lat = Double.random(in: (lats.min()! - 0.001)...min(90, lats.max()! + 0.001), using: &rng)
            let lon =
                crossing
                ? RandomRing.wrapped(Double.random(in: 179.97...180.03, using: &rng))
                : RandomRing.wrapped(Double.random(in: (lons.min()! - 0.001)...(lons.max()! + 0.001), using: &rng))
            return (RandomRing.wrapped(lat), lon)
        }
        return boundary + beside + scattered
    }

    @Test func containmentEqualsTheOracle() throws {
        for seed in [42, IndexConformanceTests.runSeed] {
            var rng = SeededGenerator(seed: seed)
            for (name, ring) in Self.rings(&rng) {
                let shape = try PlaceShape.validated(ring)
                var inside = 0, outside = 0
                let oracle = PlaceOracle.Ring(ring)
                for p in Self.probes(ring, &rng) {
                    let expected = oracle.contains(lat: p.lat, lon: p.lon)
                    #expect(shape.contains(lat: p.lat, lon: p.lon) == expected, "seed \(seed) \(name) point \(p)")
                    if expected { inside += 1 } else { outside += 1 }
                }
                // Both answers occur, so neither constant answer could pass.
                #expect(inside > 10 && outside > 50, "seed \(seed) \(name): \(inside) in, \(outside) out")
            }
        }
    }

    /// `inside` and `outside` for a box hold for every point of it.
    @Test func boxRelationsHoldForEveryPointInTheBox() throws {
        var rng = SeededGenerator(seed: IndexConformanceTests.runSeed)
        var seen: [PlaceShape.Relation: Int] = [:]
        for (name, ring) in Self.rings(&rng) where name != "antimeridian" {
            let shape = try PlaceShape.validated(ring)
            let oracle = PlaceOracle.Ring(ring)
            let box = shape.box
            for _ in 0..<300 {
                let size = [1e-6, 1e-4, 0.003, 0.02].randomElement(using: &rng)!
                let south = Double.random(in: (box.south - 0.005)...min(90, box.north + 0.005), using: &rng)
                let west = Double.random(in: (box.west - 0.005)...(box.east + 0.005), using: &rng)
                let (s, n, w, e) = (RandomRing.wrapped(south), RandomRing.wrapped(min(90, south + size)), RandomRing.wrapped(west), RandomRing.wrapped(west + size))
                guard w <= e, s <= n else { continue }
                let relation = shape.relation(south: s, north: n, west: w, east: e)
                seen[relation, default: 0] += 1
                guard relation != .straddles else { continue }
                let corners = [(s, w), (s, e), (n, w), (n, e)]
                let inner = (0..<20).map { _ in (RandomRing.wrapped(Double.random(in: s...n, using: &rng)), RandomRing.wrapped(Double.random(in: w...e, using: &rng))) }
                for (lat, lon) in corners + inner {
                    #expect(oracle.contains(lat: lat, lon: lon) == (relation == .inside), "\(name) box \(s),\(n),\(w),\(e) point \(lat),\(lon)")
                }
            }
        }
        #expect(seen[.inside, default: 0] > 10 && seen[.outside, default: 0] > 10 && seen[.straddles, default: 0] > 10, "\(seen)")
    }

    @Test func badRingsAreRefused() {
        func refused(_ ring: Ring, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(throws: PlaceShapeError.self, sourceLocation: sourceLocation) { try PlaceShape.validated(ring) }
            do { _ = try PlaceShape.validated(ring) } catch {
                #expect(error.reason.contains(words), "\(error.reason)", sourceLocation: sourceLocation)
            }
        }
        refused([(0, 0), (1, 0)], "at least 3")
        refused([(0, 0), (1, 0), (0, 0)], "at least 3")
        refused((0..<1001).map { (cos(Double($0) / 1001 * 2 * .pi), sin(Double($0) / 1001 * 2 * .pi)) }, "at most 1000")
        refused([(0, 0), (.nan, 0), (1, 1)], "vertex 1")
        refused([(0, 0), (.infinity, 0), (1, 1)], "vertex 1")
        refused([(0, 0), (181, 0), (1, 1)], "vertex 1")
        refused([(0, 0), (1, 0), (1, 91)], "vertex 2")
        refused([(0, 0), (1, 1), (1, 0), (0, 1)], "cross itself")  // a bow tie
        refused([(0, 0), (2, 0), (2, 2), (1, 0), (0, 2)], "cross itself")  // touches its own edge
        refused([(0, 0), (2, 0), (1, 0)], "cross itself")  // folds back: no area
        refused([(0, 0), (1, 1), (2, 2)], "cross itself")  // collinear
        refused([(-180, 80), (-90, 80), (0, 80), (90, 80)], "pole")
        refused([(0, -80), (120, -80), (-120, -80)], "pole")
    }

    @Test func goodRingsAreKept() throws {
        let square = try PlaceShape.validated([(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)])
        #expect(square.vertexCount == 4)
        #expect(square.contains(lat: 0.5, lon: 1) && square.contains(lat: 1, lon: 1) && !square.contains(lat: 1.0000001, lon: 1))
        let acrossTheDateLine = try PlaceShape.validated([(179.5, -1), (-179.5, -1), (-179.5, 1), (179.5, 1)])
        #expect(acrossTheDateLine.contains(lat: 0, lon: 180) && acrossTheDateLine.contains(lat: 0, lon: -180))
        #expect(acrossTheDateLine.contains(lat: 0, lon: -179.6) && !acrossTheDateLine.contains(lat: 0, lon: 0))
        #expect(acrossTheDateLine.box == GeoBox(west: 179.5, south: -1, east: -179.5, north: 1))
        let thousand = try PlaceShape.validated((0..<1000).map { (cos(Double($0) / 1000 * 2 * .pi), sin(Double($0) / 1000 * 2 * .pi)) })
        #expect(thousand.vertexCount == 1000 && thousand.contains(lat: 0, lon: 0))
        let touchingThePole = try PlaceShape.validated([(0, 80), (10, 80), (10, 90), (0, 90)])
        #expect(touchingThePole.contains(lat: 90, lon: 5))
    }

    // MARK: Queries filtered by a place

    /// Random posts with extra ones on and beside the ring, and some on floors.
    static func samples(around ring: Ring, _ rng: inout SeededGenerator) -> [SamplePost] {
        let probes = Self.probes(ring, &rng)
        return probes.enumerated().map { i, p in
            SamplePost(
                id: Int64(i + 1), lat: p.lat, lon: p.lon, heading: Double(Int.random(in: 0..<360, using: &rng)),
                tag: RandomBoard.tags.randomElement(using: &rng)!, createdAt: RandomBoard.epoch + Int64.random(in: 0..<1000, using: &rng) * 60_000,
                floor: Bool.random(using: &rng) ? Int.random(in: -1...3, using: &rng) : nil)
        }
    }

    /// The oracle's answer for each ring is worked out once and put to every index structure.
    @Test func queriesWithAPlaceEqualTheOracle() throws {
        for seed in [42, IndexConformanceTests.runSeed] {
            var rng = SeededGenerator(seed: seed)
            for (name, ring) in Self.rings(&rng) {
                let shape = try PlaceShape.validated(ring)
                let samples = Self.samples(around: ring, &rng)
                let oracle = PlaceOracle.Ring(ring)
                let inPlace = samples.filter { oracle.contains(lat: $0.lat, lon: $0.lon) }
                for kind in IndexKind.allCases {
                    let fixture = IndexConformanceTests.Fixture(samples, kind: kind)
                    for _ in 0..<6 {
                        let tags: Set<String>? = Bool.random(using: &rng) ? nil : [RandomBoard.tags.randomElement(using: &rng)!]
                        let floors: ClosedRange<Int16>? = Bool.random(using: &rng) ? nil : 0...2
                        let from: Int64? = Bool.random(using: &rng) ? nil : RandomBoard.epoch + 300 * 60_000
                        let to: Int64? = Bool.random(using: &rng) ? nil : RandomBoard.epoch + 800 * 60_000
                        var filter = fixture.filter(tags: tags, from: from, to: to, floor: nil)
                        filter.floors = floors
                        filter.place = shape
                        let wanted = inPlace.filter { post in
                            (floors == nil || post.floor.map { floors!.contains(Int16($0)) } == true)
                        }
                        let context = "\(kind) seed \(seed) \(name) tags \(String(describing: tags)) floors \(String(describing: floors)) from \(String(describing: from)) to \(String(describing: to))"

                        // The world, or a box over part of the place (crossing ±180 with it).
                        let box: GeoBox = Bool.random(using: &rng) ? .world : {
                            let b = shape.box
                            let westHalf = b.crossesAntimeridian ? b.west : (b.west + b.east) / 2
                            return GeoBox(west: westHalf, south: b.south, east: b.east, north: (b.south + b.north) / 2)
                        }()
                        let expected = Oracle.browse(wanted, west: box.west, south: box.south, east: box.east, north: box.north, tags: tags, from: from, to: to)
                        var search = AreaSearch(box: box, filter: filter, limit: 197)
                        var got: [Int64] = []
                        while got.count <= samples.count {
                            let page = fixture.index.browse(search)
                            got += page.map(\.id)
                            guard page.count == search.limit, let last = page.last else { break }
                            search.after = (last.createdAt, last.id)
                        }
                        #expect(got == expected.map(\.id), "browse \(context)")
                        #expect(fixture.index.count(in: box, filter: filter) == expected.count, "count \(context)")
                        let counts = fixture.index.tagCounts(in: box, filter: filter)
                        let expectedCounts = Dictionary(grouping: expected, by: \.tag).mapValues(\.count)
                        #expect(Dictionary(uniqueKeysWithValues: counts.map { (fixture.tags.name(of: $0.key), $0.value) }) == expectedCounts, "tags \(context)")
                        let clusters = fixture.index.clusters(in: box, filter: filter, zoom: [3, 12, 18].randomElement(using: &rng)!)
                        #expect(clusters.total == expected.count && clusters.clusters.reduce(0) { $0 + $1.count } == expected.count, "clusters \(context)")

                        let centre = ring[0]
                        var q = Oracle.Nearby(lat: centre.lat, lon: centre.lon, radius: [100, 1000, 5000].randomElement(using: &rng)!)
                        q.tags = tags
                        q.from = from
                        q.to = to
                        q.newest = Bool.random(using: &rng)
                        if Bool.random(using: &rng) {
                            (q.facing, q.fov, q.accuracy) = (Double(Int.random(in: 0..<360, using: &rng)), [60, 180].randomElement(using: &rng)!, 5)
                        }
                        if Bool.random(using: &rng) { (q.heading, q.tolerance) = (Double(Int.random(in: 0..<360, using: &rng)), 45) }
                        let nearbyExpected = Oracle.nearby(wanted, q)
                        var nearby = NearbySearch(
                            lat: q.lat, lon: q.lon, radius: q.radius, cone: q.facing.map { .init(facing: $0, fov: q.fov, accuracy: q.accuracy) },
                            headingFilter: q.heading.map { .init(heading: $0, tolerance: q.tolerance) }, filter: filter,
                            order: q.newest ? .newest : .distance, limit: 61)
                        var hits: [NearbyHit] = []
                        while hits.count <= samples.count {
                            let page = fixture.index.nearby(nearby)
                            hits += page
                            guard page.count == nearby.limit, let last = page.last else { break }
                            nearby.after = last.position(for: nearby.order)
                        }
                        #expect(hits.map(\.id) == nearbyExpected.map(\.id), "nearby \(context)")
                    }
                }
            }
        }
    }
}
