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
