import BoardTestSupport
@testable import GeoIndex
import Testing

/// The cell table against a `Dictionary`, through inserts and removals that make long runs of
/// colliding keys, runs wrapping past the table's end, and growth.
@Suite struct CellTableTests {
    @Test(arguments: [10, 300, 20_000]) func agreesWithADictionary(keyRange: Int) {
        var random = SeededGenerator(seed: UInt64(keyRange))
        var table = CellTable()
        var oracle: [Int64: Int32] = [:]
        var nextNumber: Int32 = 0
        for step in 0..<40_000 {
            // Keys as the grids make them (a size, a row, a column), from a range small enough
            // that most operations meet keys already filed.
            let key = GridLevels.key(level: Int(random.next() % 3), row: Int(random.next() % UInt64(keyRange)), column: Int(random.next() % 7))
            if oracle[key] != nil, random.next() % 2 == 0 {
                table.remove(key)
                oracle[key] = nil
            } else if oracle[key] == nil {
                table.insert(key, number: nextNumber)
                oracle[key] = nextNumber
                nextNumber += 1
            }
            // Removing what is not there changes nothing.
            table.remove(-1 - Int64(step))
            if step % 997 == 0 || step == 39_999 {
                #expect(table.count == oracle.count)
                for (key, number) in oracle { #expect(table[key] == number, "key \(key) at step \(step)") }
                #expect(Dictionary(uniqueKeysWithValues: table.all.map { ($0.key, $0.number) }) == oracle)
                #expect(table[Int64.max] == nil)
            }
        }
        for key in Array(oracle.keys) {
            table.remove(key)
            oracle[key] = nil
            #expect(table[key] == nil)
        }
        #expect(table.count == 0 && table.all.isEmpty)
    }
}
