import BoardTestSupport
import GeoIndex
import Testing

/// The R-tree stays sound (node fill, equal leaf depth, boxes and summaries covering their
/// contents) through bulk loads, inserts, replacements and removals, and keeps answering like
/// the oracle as it changes.
@Suite struct RTreeInvariantTests {
    static func indexed(_ s: SamplePost, _ tags: inout TagInterner) -> IndexedPost {
        IndexedPost(id: s.id, lat: s.lat, lon: s.lon, heading: s.heading, tag: tags.intern(s.tag), createdAt: s.createdAt, floor: s.floor.map { Int16($0) })
    }

    @Test(arguments: [0, 1, 5, 16, 17, 100, 257, 5000])
    func bulkLoadsAreSound(count: Int) {
        var rng = SeededGenerator(seed: UInt64(count) + 3)
        var tags = TagInterner()
        let posts = RandomBoard.posts(.cities, count: count, using: &rng).map { Self.indexed($0, &tags) }
        let tree = RTreeIndex(bulk: posts)
        #expect(tree.count == count)
        #expect(tree.invariantViolations() == [])
    }

    @Test(arguments: BoardShape.allCases)
    func churnKeepsTheTreeSoundAndExact(shape: BoardShape) {
        var rng = SeededGenerator(seed: 77)
        var tags = TagInterner()
        let samples = RandomBoard.posts(shape, count: 1200, using: &rng)
        var tree = RTreeIndex(bulk: samples.prefix(600).map { Self.indexed($0, &tags) })
        var live = Dictionary(uniqueKeysWithValues: samples.prefix(600).map { ($0.id, $0) })
        for round in 0..<6 {
            // Insert a batch, replace some, remove some.
            for sample in samples[(600 + round * 100)..<(700 + round * 100)] {
                tree.insert(Self.indexed(sample, &tags))
                live[sample.id] = sample
            }
            for id in live.keys.shuffled(using: &rng).prefix(120) {
                #expect(tree.remove(id: id)?.id == id)
                live[id] = nil
            }
            if var moved = live.values.randomElement(using: &rng) {
                moved.lat = -moved.lat
                tree.insert(Self.indexed(moved, &tags))
                live[moved.id] = moved
            }
            #expect(tree.invariantViolations() == [], "round \(round)")
            #expect(tree.count == live.count)
            let current = Array(live.values)
            for _ in 0..<20 {
                let viewer = RandomBoard.viewer(near: current, using: &rng)
                let q = Oracle.Nearby(lat: viewer.lat, lon: viewer.lon, radius: [100, 5000, 50_000].randomElement(using: &rng)!)
                let got = tree.nearby(NearbySearch(lat: q.lat, lon: q.lon, radius: q.radius, limit: 10_000)).map(\.id)
                #expect(got == Oracle.nearby(current, q).map(\.id), "round \(round)")
            }
        }
        for id in Array(live.keys) { tree.remove(id: id) }
        #expect(tree.count == 0)
        #expect(tree.invariantViolations() == [])
        #expect(tree.nearby(NearbySearch(lat: 0, lon: 0, radius: 50_000)).isEmpty)
    }
}
