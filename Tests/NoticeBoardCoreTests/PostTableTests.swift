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
    /// freed rows are reused, and compaction (forced small here) moves no text.
    @Test func matchesADictionaryThroughAddsUpdatesRemovalsAndCompaction() {
        var generator = SeededGenerator(seed: 7)
        var table = PostTable(compactionFloor: 4096)
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
