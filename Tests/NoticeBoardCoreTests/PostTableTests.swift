import BoardTestSupport
import Testing

@testable import NoticeBoardCore

@Suite struct PostTableTests {
    static func note(_ id: Int64, _ text: String, step: Int = 0) -> Post {
        Post(
            id: id, lat: 0, lon: 0, heading: nil, message: text, tag: "t", createdAt: 0,
            accuracy: step % 2 == 0 ? Double(step) / 7 : nil, floor: nil, beacon: step % 5 == 0 ? "B:\(step):1" : nil,
            replyCount: step % 4, deviceHash: step % 3 == 0 ? "device-\(step % 11)" : nil)
    }

    /// Random adds, updates and removals against a dictionary: every row reads back as put,
    /// freed rows are reused, and compaction (forced small here) loses no text.
    @Test func matchesADictionaryThroughAddsUpdatesRemovalsAndCompaction() {
        var generator = SeededGenerator(seed: 7)
        var table = PostTable(compactionFloor: 4096, chunkBytes: 1 << 17)
        var rows: [Int64: Int32] = [:]
        var oracle: [Int64: Post] = [:]
        let words = ["", "a", "café ☕", "naïve façade", "雨の日", String(repeating: "long text ", count: 40), "🦉🦉"]
        for step in 0..<20_000 {
            let id = Int64.random(in: 1...600, using: &generator)
            let post = Self.note(id, "\(words.randomElement(using: &generator)!) \(step)", step: step)
            switch (Int.random(in: 0..<3, using: &generator), rows[id]) {
            case (0, let row?):
                table.remove(at: row)
                rows[id] = nil
                oracle[id] = nil
            case (1, let row?):
                table.update(at: row, post)
                oracle[id] = post
            case (_, nil):
                rows[id] = table.add(post)
                oracle[id] = post
            default:
                continue
            }
            if step % 997 == 0 || step == 19_999 {
                #expect(table.count == oracle.count)
                #expect(Set(rows.values).count == rows.count, "two posts share a row")
                for (id, expected) in oracle {
                    let row = table.row(at: rows[id]!)
                    #expect(row.message == expected.message)
                    #expect(row.replyCount == expected.replyCount)
                    #expect(row.accuracy == expected.accuracy)
                    #expect(row.beacon == expected.beacon)
                    #expect(row.deviceHash == expected.deviceHash)
                }
                #expect(table.devicesKnown == Set(oracle.values.compactMap(\.deviceHash)).count, "devices of removed posts kept")
            }
        }
        // Every row gone: no device is remembered.
        for row in rows.values { table.remove(at: row) }
        #expect(table.devicesKnown == 0)
        #expect(table.compactions > 0)
        #expect(table.garbageBytes <= max(4096, table.liveBytes))
    }

    /// A compaction of many rows is spread over many writes, each looking at a bounded number
    /// of rows; rows read back their texts at every point of it, also rows added, changed and
    /// removed meanwhile, and the emptied chunks are given back at its end.
    @Test func aCompactionMovesOnAStepAtATimeAndGivesChunksBack() {
        var generator = SeededGenerator(seed: 40)
        var table = PostTable(compactionFloor: 1 << 16, chunkBytes: 1 << 17)
        var oracle: [Int32: String] = [:]
        var nextID: Int64 = 1
        func add() {
            let text = "note \(nextID) " + String(repeating: "é☕x", count: Int(nextID % 40))
            oracle[table.add(Self.note(nextID, text))] = text
            nextID += 1
        }
        for _ in 0..<20_000 { add() }
        let chunksFull = table.textChunks
        var removals = 0
        var writesWhileCompacting = 0
        for row in oracle.keys.shuffled(using: &generator) where oracle.count > 4_000 {
            table.remove(at: row)
            oracle[row] = nil
            removals += 1
            if table.isCompacting {
                writesWhileCompacting += 1
                // Writes in the middle of a compaction: new rows, rewritten texts.
                if writesWhileCompacting % 7 == 0 { add() }
                if writesWhileCompacting % 11 == 0, let (row, _) = oracle.randomElement(using: &generator) {
                    let text = "changed \(row) ☂"
                    table.update(at: row, Self.note(Int64(row), text))
                    oracle[row] = text
                }
                if writesWhileCompacting % 97 == 0 { #expect(oracle.allSatisfy { table.row(at: $0.key).message == $0.value }) }
            }
        }
        #expect(table.compactions > 0 || table.isCompacting, "16 000 removals started no compaction")
        #expect(writesWhileCompacting >= 20_000 / PostTable.rowsPerWrite, "a compaction was done in fewer writes than its rows allow")
        while table.tidy(rows: 500) { #expect(oracle.allSatisfy { table.row(at: $0.key).message == $0.value }) }
        #expect(table.compactions > 0)
        #expect(oracle.allSatisfy { table.row(at: $0.key).message == $0.value })
        #expect(table.textChunks < chunksFull, "no chunk was given back (\(table.textChunks) of \(chunksFull))")
        #expect(table.garbageBytes <= table.liveBytes)
        for _ in 0..<16_000 { add() }
        #expect(oracle.allSatisfy { table.row(at: $0.key).message == $0.value })
    }

    @Test func aLoadAppendsRowsInOrderThenTakesChanges() {
        var table = PostTable()
        for id in Int64(1)...1000 { #expect(table.appendLoaded(Self.note(id, "note \(id)")) == Int32(id - 1)) }
        table.finishLoading()
        #expect(table.count == 1000)
        #expect((1...1000).allSatisfy { table.row(at: Int32($0 - 1)).message == "note \($0)" })
        table.remove(at: 0)
        let reused = table.add(Self.note(1001, "after the load"))
        #expect(reused == 0 && table.row(at: reused).message == "after the load" && table.count == 1000)
    }
}
