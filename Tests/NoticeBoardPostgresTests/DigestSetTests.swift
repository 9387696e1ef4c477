import Testing

@testable import NoticeBoardPostgres

/// The bulk load's set of seen import keys against a `Set`, with digests that share their
/// first word's low bits (long probe runs), share the first word outright, repeat, and wrap
/// past the table's end, through its growth.
@Suite struct DigestSetTests {
    @Test func agreesWithASet() {
        var random = SystemRandomNumberGenerator()
        var table = DigestSet()
        var oracle = Set<ImportKey.Digest>()
        var made: [ImportKey.Digest] = []
        for step in 0..<50_000 {
            let digest: ImportKey.Digest
            switch (step % 100, step % 5) {
            case (_, 0) where !made.isEmpty: digest = made.randomElement(using: &random)!  // a repeated row
            case (1, _): digest = ImportKey.Digest(words: (random.next() << 32 | UInt64(step % 7), random.next(), 0, 0))  // colliding homes
            case (2, _): digest = ImportKey.Digest(words: (42, 0, 0, UInt64(step)))  // the same first word
            case (3, _): digest = ImportKey.Digest(words: (UInt64.max - UInt64(step % 3), 1, 2, UInt64(step)))  // the last buckets
            default: digest = ImportKey.Digest(words: (random.next(), random.next(), random.next(), random.next()))
            }
            made.append(digest)
            let (added, expected) = (table.insert(digest), oracle.insert(digest).inserted)
            #expect(added == expected, "step \(step)")
        }
        #expect(table.count == oracle.count)
        for digest in oracle {
            let added = table.insert(digest)
            #expect(!added)
        }
        #expect(table.count == oracle.count)
    }
}
