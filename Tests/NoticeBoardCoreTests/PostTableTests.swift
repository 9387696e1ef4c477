import BoardTestSupport
import Testing

@testable import NoticeBoardCore

@Suite struct PostTableTests {
    /// Random puts, replacements and removals against a dictionary: every row reads back as
    /// put, removed ones are gone, and compaction (forced small here) moves no text.
    @Test func matchesADictionaryThroughPutsRemovalsAndCompaction() {
        var generator = SeededGenerator(seed: 7)
        var table = PostTable(compactionFloor: 4096)
        var oracle: [Int64: Post] = [:]
        let words = ["", "a", "café ☕", "naïve façade", "雨の日", String(repeating: "long text ", count: 40), "🦉🦉"]
        for step in 0..<20_000 {
            let id = Int64.random(in: 1...600, using: &generator)
            if Int.random(in: 0..<3, using: &generator) == 0 {
                table.remove(id)
                oracle[id] = nil
            } else {
                let post = Post(
                    id: id, lat: 0, lon: 0, heading: nil, message: "\(words.randomElement(using: &generator)!) \(step)", tag: "t",
                    createdAt: 0, accuracy: Bool.random(using: &generator) ? Double(step) / 7 : nil, floor: nil,
                    beacon: step % 5 == 0 ? "B:\(step):1" : nil, replyCount: step % 4,
                    deviceHash: step % 3 == 0 ? "device-\(step % 11)" : nil)
                table.put(post)
                oracle[id] = post
            }
            if step % 997 == 0 || step == 19_999 {
                #expect(table.count == oracle.count)
                for id in Int64(1)...600 {
                    let row = table.row(id)
                    guard let expected = oracle[id] else {
                        #expect(row == nil && !table.contains(id))
                        continue
                    }
                    #expect(row?.message == expected.message)
                    #expect(row?.replyCount == expected.replyCount)
                    #expect(row?.accuracy == expected.accuracy)
                    #expect(row?.beacon == expected.beacon)
                    #expect(row?.deviceHash == expected.deviceHash)
                }
            }
        }
        #expect(table.compactions > 0)
        #expect(table.garbageBytes <= max(4096, table.liveBytes))
    }

    @Test func trimmingKeepsEveryRow() {
        var table = PostTable()
        for id in Int64(1)...1000 {
            table.put(Post(id: id, lat: 0, lon: 0, heading: nil, message: "note \(id)", tag: "t", createdAt: 0, accuracy: nil, floor: nil, beacon: nil))
        }
        table.trim()
        #expect((1...1000).allSatisfy { table.row(Int64($0))?.message == "note \($0)" })
    }
}
