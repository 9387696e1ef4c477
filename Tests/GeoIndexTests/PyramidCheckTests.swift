import BoardTestSupport
@testable import GeoIndex
import Testing

/// The invariant checker's pyramid check can fail, also when every post has been removed.
@Suite struct PyramidCheckTests {
    @Test func aStrayCountIsFoundWhenEveryPostIsGone() {
        var rng = SeededGenerator(seed: 11)
        var tags = TagInterner()
        let posts = RandomBoard.posts(.cities, count: 50, using: &rng).map { RTreeInvariantTests.indexed($0, &tags) }
        var tree = RTreeIndex(bulk: posts)
        for post in posts { #expect(tree.remove(id: post.id) != nil) }
        #expect(tree.count == 0)
        #expect(tree.pyramidViolations() == [], "an emptied index is sound")
        // A count left behind in the pyramid, as a bug in removal would leave it.
        tree.pyramid.add(posts[0], UnitVector(lat: posts[0].lat, lon: posts[0].lon))
        #expect(!tree.pyramidViolations().isEmpty)
        #expect(!tree.invariantViolations().isEmpty)
    }
}
