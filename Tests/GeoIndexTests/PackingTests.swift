import BoardTestSupport
@testable import GeoIndex
import Testing

/// The bulk build's sorts. A wrong order would not break a query (boxes are computed from what
/// the nodes hold), only make every walk slower, so the oracle suites would not notice.
@Suite struct PackingTests {
    @Test(arguments: [0, 1, 511, 512, 513, 5000, 70_000])
    func radixSortOrdersByTheHighHalfAndKeepsTiesInInputOrder(count: Int) {
        var rng = SeededGenerator(seed: UInt64(count) + 11)
        // Half the high halves from a narrow range with many duplicates (shared high bytes, as
        // nearby coordinates have, so passes get skipped), half from anywhere; low halves random.
        let keys = (0..<count).map { _ in
            let high = Bool.random(using: &rng) ? 0x4A00_0000 + UInt32.random(in: 0..<3000, using: &rng) : UInt32.random(in: 0...UInt32.max, using: &rng)
            return UInt64(high) << 32 | UInt64(UInt32.random(in: 0...UInt32.max, using: &rng))
        }
        var sorted = keys
        RTreeIndex.sortByHighHalf(&sorted)
        // What a stable sort on the high half gives; at or below 512 keys the standard sort
        // (ties by low half) is used instead, which is also a valid order of the high halves.
        let expected = count > 512
            ? keys.enumerated().sorted { ($0.element >> 32, $0.offset) < ($1.element >> 32, $1.offset) }.map(\.element)
            : keys.sorted()
        #expect(sorted == expected)
    }

    @Test func tilesAreCutIntoLeavesByTime() {
        var rng = SeededGenerator(seed: 5)
        var tags = TagInterner()
        let posts = RandomBoard.posts(.cities, count: 3000, using: &rng).map { RTreeInvariantTests.indexed($0, &tags) }
        let vectors = posts.map { UnitVector(lat: $0.lat, lon: $0.lon) }
        let leaves = RTreeIndex.packTilesByTime(posts, centres: vectors)
        #expect(leaves.flatMap { $0 }.sorted() == Array(posts.indices))
        #expect(leaves.allSatisfy { $0.count <= RTreeIndex.leafCapacity })
        // Within a leaf, times ascend (a tile is cut into leaves in time order).
        for leaf in leaves {
            #expect(zip(leaf, leaf.dropFirst()).allSatisfy { posts[$0].createdAt <= posts[$1].createdAt })
        }
    }
}
