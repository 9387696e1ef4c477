import Testing

@testable import NoticeBoardCore

/// The arena's promise: stored bytes never move, also after a load's last chunk was trimmed.
@Suite struct TextArenaTests {
    @Test func bytesStayWhereTheyWereAfterATrim() {
        var arena = TextArena()
        let first = arena.append("loaded at start")
        arena.trimLastChunk()
        let before = arena.chunkAddresses
        var later: [TextArena.Span] = []
        for index in 0..<1000 { later.append(arena.append("posted after the load, number \(index)")) }
        #expect(Array(arena.chunkAddresses.prefix(before.count)) == before, "a trimmed chunk was grown (moved)")
        #expect(arena.chunkAddresses.count == before.count + 1)
        #expect(arena.string(first) == "loaded at start")
        #expect(later.enumerated().allSatisfy { arena.string($0.element) == "posted after the load, number \($0.offset)" })
    }
}
