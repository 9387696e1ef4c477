import DatabaseTestSupport
import NoticeBoardCore
import PostgresNIO
import Testing

@testable import NoticeBoardPostgres

/// The bulk path (an empty board, keys made in Swift, indexes built at the end) against the
/// batch path (keys made in SQL, `ON CONFLICT`): the same file must leave the same rows, and
/// each path must recognise what the other stored.
@Suite(.timeLimit(.minutes(5))) struct BulkImportTests {
    static let numbers: [Double] = [0, 1, 37, 45.5, 0.1, 0.0001, 0.00001, 2.5e-7, 1e-7, 179.9999999, -89.1234567, 12.3456789]

    /// Posts with every optional column present or absent, whole and tiny numbers, long and
    /// non-ASCII text, times from 1 BC to past 9999, threads, and repeated rows.
    static func randomPosts(count: Int, seed: UInt64) throws -> [ImportedPost] {
        var generator = SplitMix(seed: seed)
        func number(in range: ClosedRange<Double>) -> Double {
            if Bool.random(using: &generator), let pick = numbers.randomElement(using: &generator), range.contains(pick) {
                return Bool.random(using: &generator) && range.contains(-pick) ? -pick : pick
            }
            return (Double.random(in: range, using: &generator) * 1e7).rounded() / 1e7
        }
        let times = ["0000-03-01T00:00:00Z", "1970-01-01T00:00:00Z", "2024-02-29T23:59:59.999Z", "9999-12-31T23:59:59.999Z"]
        var posts: [ImportedPost] = []
        for index in 0..<count {
            var members: [String: JSONValue] = [
                "lat": .number(number(in: -90...90)), "lon": .number(number(in: -180...180)),
                "message": .string(["tab\there", "back\\slash", "line\nbreak", "美食 😢", "plain \(index % 7)"].randomElement(using: &generator)!),
                "tag": .string(["food", "lifestyle", "été"].randomElement(using: &generator)!),
            ]
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: members["createdAt"] = .number(-7e13)  // 249 BC
            case 1: members["createdAt"] = .number(9e14)  // past the year 9999
            case 2, 3: members["createdAt"] = .string(times.randomElement(using: &generator)!)
            default: members["createdAt"] = .number(Double(Int64.random(in: 0...1_900_000_000_000, using: &generator)))
            }
            if Bool.random(using: &generator) { members["id"] = .number(Double(index % 50)) }
            if Bool.random(using: &generator) { members["heading"] = .number(number(in: 0...359.9999)) }
            if Bool.random(using: &generator) { members["accuracy"] = .number(number(in: 0...10000)) }
            if Bool.random(using: &generator) { members["floor"] = .number(Double(Int.random(in: -20...200, using: &generator))) }
            if Int.random(in: 0..<4, using: &generator) == 0 { members["beacon"] = .string("f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:\(index % 3)") }
            if Int.random(in: 0..<4, using: &generator) == 0 { members["status"] = .string("hidden") }
            if Int.random(in: 0..<4, using: &generator) == 0 { members["expiresAt"] = .string("2030-01-01T00:00:00.5Z") }
            if Int.random(in: 0..<5, using: &generator) == 0 {
                members["replies"] = .array([
                    .object(["message": .string("a reply \(index)"), "createdAt": .string("2026-01-01T00:00:00Z")]),
                    .object(["message": .string("hidden"), "createdAt": .string("2026-01-02T00:00:00Z"), "status": .string("hidden")]),
                ])
            }
            posts.append(try ImportedPost(json: .object(members)))
            // Some rows come twice, as a file joined from two exports would have them.
            if Int.random(in: 0..<10, using: &generator) == 0 { posts.append(posts[posts.count - 1]) }
        }
        return posts
    }

    static let rowsQuery: PostgresQuery = """
        SELECT concat_ws('|', import_key, lat, lon, heading, message, tag, created_at, accuracy, floor, beacon, status, expires_at,
                         reply_count, (SELECT string_agg(r.message || r.status || r.created_at, ',' ORDER BY r.id) FROM replies r WHERE r.post_id = p.id))
        FROM posts p ORDER BY id
        """

    static let indexesQuery: PostgresQuery = """
        SELECT indexdef FROM pg_indexes WHERE tablename = 'posts' ORDER BY indexname
        """

    static let changeTriggersQuery: PostgresQuery = """
        SELECT tgname::text || tgenabled::text FROM pg_trigger WHERE tgrelid = 'posts'::regclass AND tgfoid = 'record_post_changes'::regproc ORDER BY 1
        """

    static func strings(_ query: PostgresQuery, _ client: PostgresClient) async throws -> [String] {
        var values: [String] = []
        for try await value in try await client.query(query, logger: TestDatabase.logger).decode(String.self) { values.append(value) }
        return values
    }

    static func loadWhole(_ posts: [ImportedPost], into archive: PostgresPostArchive, batch: Int = 40) async throws -> (Bool, Int) {
        var added = 0
        let loaded = try await archive.loadIntoEmptyBoard { loader in
            for start in stride(from: 0, to: posts.count, by: batch) {
                added += try await loader.add(Array(posts[start..<min(start + batch, posts.count)]))
            }
        }
        return (loaded, added)
    }

    @Test func bothPathsStoreTheSameRowsAndRecogniseEachOthersKeys() async throws {
        let posts = try Self.randomPosts(count: 300, seed: 17)
        let bulkEndpoint = try await TestDatabase.fresh()
        let batchEndpoint = try await TestDatabase.fresh()
        let (bulkRows, bulkIndexes, indexesBefore) = try await TestDatabase.withClient(bulkEndpoint) { client in
            let archive = PostgresPostArchive(client: DatabasePool(client), logger: TestDatabase.logger)
            let before = try await Self.strings(Self.indexesQuery, client)
            let (loaded, added) = try await Self.loadWhole(posts, into: archive)
            #expect(loaded)
            // A re-run by the batch path recognises every row: the keys match SQL's.
            var again = 0
            for start in stride(from: 0, to: posts.count, by: 64) { again += try await archive.importBatch(Array(posts[start..<min(start + 64, posts.count)])) }
            #expect(again == 0)
            let rows = try await Self.strings(Self.rowsQuery, client)
            #expect(rows.count == added)
            // A board with posts is not bulk loaded.
            let (second, _) = try await Self.loadWhole(posts, into: archive)
            #expect(!second)
            return (rows, try await Self.strings(Self.indexesQuery, client), before)
        }
        #expect(bulkIndexes == indexesBefore)
        #expect(bulkIndexes.count >= 4)
        let batchRows = try await TestDatabase.withClient(batchEndpoint) { client in
            let archive = PostgresPostArchive(client: DatabasePool(client), logger: TestDatabase.logger)
            var added = 0
            for start in stride(from: 0, to: posts.count, by: 64) { added += try await archive.importBatch(Array(posts[start..<min(start + 64, posts.count)])) }
            return try await Self.strings(Self.rowsQuery, client)
        }
        #expect(batchRows.count == bulkRows.count)
        for (bulk, batch) in zip(bulkRows, batchRows) { #expect(bulk == batch) }
        #expect(Set(posts.map { ImportKey(of: $0).hex }).count == bulkRows.count)
    }

    @Test func aFailedLoadLeavesTheBoardAndItsIndexesAsTheyWere() async throws {
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            let archive = PostgresPostArchive(client: DatabasePool(client), logger: TestDatabase.logger)
            let before = try await Self.strings(Self.indexesQuery, client)
            struct Interrupted: Error {}
            // The caller's own error comes back as itself.
            await #expect(throws: Interrupted.self) {
                _ = try await archive.loadIntoEmptyBoard { loader in
                    _ = try await loader.add(try Self.randomPosts(count: 50, seed: 3))
                    throw Interrupted()
                }
            }
            #expect(try await Self.strings(Self.indexesQuery, client) == before)
            #expect(try await Self.strings(Self.changeTriggersQuery, client) == ["posts_insertedO", "posts_updatedO"])
            #expect(try await Self.strings("SELECT count(*)::text FROM posts", client) == ["0"])
            #expect(try await Self.strings("SELECT count(*)::text FROM post_changes", client) == ["0"])
            #expect(try await Self.strings("SELECT seq::text FROM settled_changes", client) == ["0"])
            // The board is still empty, so the next import is a bulk one and succeeds.
            let (loaded, added) = try await Self.loadWhole(try Self.randomPosts(count: 50, seed: 3), into: archive)
            #expect(loaded && added > 0)
            // Each new post has one change, threads or not.
            #expect(try await Self.strings("SELECT count(*)::text || ' ' || count(DISTINCT post_id)::text FROM post_changes", client) == ["\(added) \(added)"])
        }
    }

    /// Followers that started before the load see every post once, in id order, with nothing
    /// between; an instance starting right after it follows from its last change (all of them
    /// less than a minute old), and the triggers file later changes again.
    @Test func aLoadFilesOneChangeAPostInOrderAndSettlesThem() async throws {
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            let pool = DatabasePool(client)
            let archive = PostgresPostArchive(client: pool, logger: TestDatabase.logger)
            let feed = PostgresChangeFeed(client: pool, logger: TestDatabase.logger)
            let before = try await feed.startingSequence()
            let (loaded, added) = try await Self.loadWhole(try Self.randomPosts(count: 700, seed: 23), into: archive, batch: 97)
            #expect(loaded)
            var seen: [PostChange] = []
            var after = before
            while true {
                // In full: the load ran in this process, so its changes are this process's own.
                let page = try await Self.inFull(feed.changes(after: after, limit: 128, ownInFull: true))
                seen += page
                guard let last = page.last else { break }
                after = last.sequence
            }
            let ids = try await Self.strings("SELECT id::text FROM posts ORDER BY posts.id", client)
            #expect(seen.count == added && ids.count == added)
            #expect(seen.map { String($0.post.id) } == ids)
            #expect(seen.map(\.sequence) == Array(before + 1...before + Int64(added)))
            #expect(try await feed.startingSequence() == before + Int64(added))
            #expect(try await Self.strings(Self.changeTriggersQuery, client) == ["posts_insertedO", "posts_updatedO"])
            // The board has posts now: the batch path, its changes filed by the triggers, none settled.
            let more = try Self.randomPosts(count: 30, seed: 29)
            let again = try await archive.importBatch(more)
            #expect(again > 0)
            let later = try await Self.inFull(feed.changes(after: before + Int64(added), limit: 1000, ownInFull: true))
            #expect(Set(later.map(\.post.id)).count == again)
            #expect(try await feed.startingSequence() == before + Int64(added))
        }
    }

    static func inFull(_ entries: [FeedEntry]) -> [PostChange] {
        entries.compactMap { if case .change(let change) = $0 { change } else { nil } }
    }

    @Test func swiftWritesFloatsAsPostgresDoes() async throws {
        let endpoint = try await TestDatabase.fresh()
        var generator = SplitMix(seed: 5)
        var values = Self.numbers + Self.numbers.map { -$0 } + [10000, 9999.5, 359.9999999, .leastNonzeroMagnitude, 1.5e-300]
        for _ in 0..<3000 { values.append((Double.random(in: -180...180, using: &generator) * 1e7).rounded() / 1e7) }
        for _ in 0..<1000 { values.append(Double.random(in: -1e-3...1e-3, using: &generator)) }
        for _ in 0..<1000 { values.append(Double(Int.random(in: -80000...80000, using: &generator)) / 8) }
        let fromPostgres = try await TestDatabase.withClient(endpoint) { [values] client in
            try await Self.strings("SELECT v::text FROM unnest(\(values)::float8[]) WITH ORDINALITY AS t(v, n) ORDER BY n", client)
        }
        #expect(fromPostgres == values.map(ImportKey.float8Text))
    }
}

/// A small seeded generator, so a failure can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
