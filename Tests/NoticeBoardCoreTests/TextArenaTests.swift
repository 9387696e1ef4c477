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

    /// Moving texts out of a chunk empties it; given back, its number is the next chunk's.
    @Test func movedTextsReadTheSameAndAnEmptiedChunkIsTakenAgain() {
        var arena = TextArena(chunkBytes: 1 << 17)
        var spans = (0..<8000).map { arena.append("text \($0) ✎ " + String(repeating: "ab", count: $0 % 50)) }
        #expect(arena.chunkAddresses.count > 2)
        for index in spans.indices where index % 3 != 0 { arena.release(spans[index]) }
        let sparse = arena.sparseChunks()
        #expect(!sparse.isEmpty)
        for index in spans.indices where index % 3 == 0 && sparse.contains(TextArena.chunk(of: spans[index])) {
            spans[index] = arena.move(spans[index])
        }
        for chunk in sparse { arena.giveBack(chunk).release() }
        #expect(arena.garbageBytes < arena.liveBytes)
        #expect(spans.indices.filter { $0 % 3 == 0 }.allSatisfy { arena.string(spans[$0]) == "text \($0) ✎ " + String(repeating: "ab", count: $0 % 50) })
        let numbers = arena.chunkAddresses.count
        while arena.chunksInUse < numbers { _ = arena.append(String(repeating: "z", count: 1000)) }
        #expect(arena.chunkAddresses.count == numbers, "a new chunk took a new number while one was free")
    }
}
