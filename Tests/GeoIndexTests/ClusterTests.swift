import BoardTestSupport
import GeoIndex
import Testing

@Suite struct ClusterTests {
    static func index(_ samples: [SamplePost], kind: IndexKind = .rtreeBulk) -> (any SpatialIndex, TagInterner) {
        var tags = TagInterner()
        let posts = samples.map { s in
            IndexedPost(id: s.id, lat: s.lat, lon: s.lon, heading: s.heading, tag: tags.intern(s.tag), createdAt: s.createdAt, floor: nil)
        }
        return (kind.make(posts), tags)
    }

    @Test(arguments: IndexKind.allCases, BoardShape.allCases)
    func countsSumToTheMatchingPostsAtEveryZoom(kind: IndexKind, shape: BoardShape) {
        var rng = SeededGenerator(seed: 11)
        let samples = RandomBoard.posts(shape, count: 3000, using: &rng)
        let (index, tags) = Self.index(samples, kind: kind)
        for zoom in [0, 3, 10, 16, 22] {
            for box in [GeoBox.world, GeoBox(west: 170, south: -60, east: -170, north: 60), GeoBox(west: -30, south: -10, east: 40, north: 70)] {
                let filter = PostFilter(tags: [tags.id(of: "food")!], createdFrom: RandomBoard.epoch + 86_400_000)
                for (useFilter, f) in [(false, PostFilter.all), (true, filter)] {
                    let expected = Oracle.browse(samples, west: box.west, south: box.south, east: box.east, north: box.north,
                                                 tags: useFilter ? ["food"] : nil, from: useFilter ? RandomBoard.epoch + 86_400_000 : nil)
                    let (clusters, total) = index.clusters(in: box, filter: f, zoom: zoom)
                    #expect(total == expected.count, "zoom \(zoom) box \(box)")
                    #expect(clusters.reduce(0) { $0 + $1.count } == total)
                    #expect(clusters.count <= 1000)
                    #expect(clusters.allSatisfy { $0.count >= 1 && (-90...90).contains($0.lat) && (-180...180).contains($0.lon) })
                    let ids = Set(expected.map(\.id))
                    for single in clusters where single.count == 1 {
                        guard let post = single.postId.flatMap({ id in expected.first { $0.id == id } }) else {
                            Issue.record("\(kind) zoom \(zoom): a one-post cluster without a matching postId: \(single)")
                            continue
                        }
                        #expect(ids.contains(post.id) && single.lat == post.lat && single.lon == post.lon)
                    }
                    #expect(clusters.filter { $0.count > 1 }.allSatisfy { $0.postId == nil })
                }
            }
        }
    }

    /// Cell by cell, the clusters equal a brute-force grid over the matching posts: counts,
    /// positions and single-post ids, at the zooms served from the count pyramid and beyond,
    /// for views that cut cells, cross the antimeridian or cover the world, through churn.
    @Test(arguments: IndexKind.allCases, BoardShape.allCases)
    func clustersEqualABruteForceGrid(kind: IndexKind, shape: BoardShape) {
        var rng = SeededGenerator(seed: 23)
        var samples = RandomBoard.posts(shape, count: 2500, using: &rng)
        var (index, _) = Self.index(samples, kind: kind)
        var tags = TagInterner()
        for sample in samples { _ = tags.intern(sample.tag) }
        // Remove and move some posts, so the pyramid is kept in step, not only built.
        for _ in 0..<300 {
            let victim = Int.random(in: 0..<samples.count, using: &rng)
            index.remove(id: samples[victim].id)
            samples.remove(at: victim)
        }
        for i in stride(from: 0, to: samples.count, by: 10) {
            samples[i].lon = FixedDegrees.quantized(-samples[i].lon)
            let s = samples[i]
            index.insert(IndexedPost(id: s.id, lat: s.lat, lon: s.lon, heading: s.heading, tag: tags.intern(s.tag), createdAt: s.createdAt, floor: nil))
        }
        let boxes = [
            GeoBox.world, GeoBox(west: 170, south: -60, east: -170, north: 60), GeoBox(west: -30, south: -10, east: 40, north: 70),
            GeoBox(west: -180, south: -90, east: 0, north: 0), GeoBox(west: 0, south: 85.2, east: 180, north: 90),
        ]
        for zoom in [0, 1, 3, 5, 6, 10] {
            for box in boxes {
                var brute = ClusterGrid(zoom: zoom)
                let matching = samples.filter { box.contains(lat: $0.lat, lon: $0.lon) }
                for s in matching {
                    brute.add(IndexedPost(id: s.id, lat: s.lat, lon: s.lon, heading: s.heading, tag: 0, createdAt: s.createdAt, floor: nil))
                }
                let expected = brute.clusters()
                let (got, total) = index.clusters(in: box, filter: .all, zoom: zoom)
                #expect(total == matching.count, "\(kind) zoom \(zoom) box \(box)")
                #expect(got.map(\.count) == expected.map(\.count), "\(kind) zoom \(zoom) box \(box)")
                #expect(got.map(\.postId) == expected.map(\.postId), "\(kind) zoom \(zoom) box \(box)")
                let placed = zip(got, expected).allSatisfy { abs($0.lat - $1.lat) < 1e-6 && abs($0.lon - $1.lon) < 1e-6 }
                #expect(placed, "\(kind) zoom \(zoom) box \(box)")
            }
        }
        if let tree = index as? RTreeIndex { #expect(tree.invariantViolations() == []) }
    }

    @Test func aClusterAcrossTheAntimeridianSitsOnIt() {
        let samples = [
            SamplePost(id: 1, lat: 0, lon: 179.999, heading: nil, tag: "a", createdAt: 0, floor: nil),
            SamplePost(id: 2, lat: 0, lon: -179.999, heading: nil, tag: "a", createdAt: 0, floor: nil),
            SamplePost(id: 3, lat: 0, lon: 180, heading: nil, tag: "a", createdAt: 0, floor: nil),
        ]
        let (clusters, total) = Self.index(samples).0.clusters(in: .world, filter: .all, zoom: 0)
        #expect(total == 3)
        #expect(clusters.count <= 2)
        #expect(clusters.allSatisfy { abs($0.lon) > 179 && abs($0.lat) < 1e-9 })
    }

    @Test func highZoomKeepsDistantPostsApartAndIdenticalOnesTogether() {
        let samples = (0..<10).map { i in
            SamplePost(id: Int64(i + 1), lat: 48.85, lon: 2.35 + Double(i / 2) * 0.01, heading: nil, tag: "a", createdAt: 0, floor: nil)
        }
        let (clusters, _) = Self.index(samples).0.clusters(in: .world, filter: .all, zoom: 16)
        #expect(clusters.map(\.count) == [2, 2, 2, 2, 2])
        #expect(clusters.allSatisfy { abs($0.lat - 48.85) < 1e-9 })
    }
}
