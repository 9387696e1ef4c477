import DatabaseTestSupport
import Foundation
import NoticeBoardCore
import NoticeBoardPostgres
import PostgresNIO
import Testing

/// The start-up load reads visible posts in chunks of column arrays and decodes the wire format
/// itself: every field must come back exactly, across chunk borders, with sparse ids (imports
/// keep theirs), NULLs in every nullable column, and times before 1970.
@Suite(.timeLimit(.minutes(5))) struct IndexLoadTests {
    static let posts: [(Post, status: String)] = {
        let ids: [Int64] = [1, 2, 3, 10, 11, 12, 5_000_000_000, 5_000_000_001, 9_000_000_000_000_000_000, Int64.max]
        return ids.enumerated().map { index, id in
            let post = Post(
                id: id, lat: [-90, 90, 0, 45.1234567, -33.8688197][index % 5], lon: [180, -180, 0.0000001, 151.2093, -0.5][index % 5],
                heading: index % 3 == 0 ? nil : Double(index) * 35.5, message: ["plain", "美食 ünïcödé 😢", "quote \" back \\ \n line", String(repeating: "x", count: 2000)][index % 4],
                tag: ["food", "lifestyle", "a"][index % 3],
                createdAt: [-1, 0, 1_795_255_200_123, -86_400_001, 253_402_300_799_999][index % 5],
                accuracy: index % 2 == 0 ? nil : 8.25, floor: index % 4 == 0 ? nil : [-20, 0, 200][index % 3],
                beacon: index % 5 == 0 ? "f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:2" : nil)
            return (post, [0, 4].contains(index) ? "hidden" : (index == 7 ? "deleted" : "visible"))
        }
    }()

    @Test(arguments: [1, 2, 3, 4, 100_000])
    func everyVisiblePostLoadsExactly(chunkSize: Int) async throws {
        let endpoint = try await TestDatabase.fresh()
        let loaded: [Post] = try await TestDatabase.withClient(endpoint) { client in
            for (post, status) in Self.posts {
                try await client.query(
                    """
                    INSERT INTO posts (id, lat, lon, heading, message, tag, created_at, accuracy, floor, beacon, status)
                    OVERRIDING SYSTEM VALUE VALUES (\(post.id), \(post.lat), \(post.lon), \(post.heading), \(post.message), \(post.tag),
                        timestamptz 'epoch' + \(post.createdAt) * interval '1 millisecond', \(post.accuracy), \(post.floor.map(Int16.init)),
                        \(post.beacon), \(status))
                    """, logger: TestDatabase.logger)
            }
            var loaded: [Post] = []
            try await PostgresPostStore(client: DatabasePool(client), logger: TestDatabase.logger, loadChunkSize: chunkSize)
                .forEachVisiblePost { loaded.append($0) }
            return loaded
        }
        let expected = Self.posts.filter { $0.status == "visible" }.map(\.0)
        #expect(loaded == expected, "chunk size \(chunkSize)")
    }

    @Test func anEmptyBoardLoadsNothing() async throws {
        let endpoint = try await TestDatabase.fresh()
        let count = try await TestDatabase.withClient(endpoint) { client in
            var count = 0
            try await PostgresPostStore(client: DatabasePool(client), logger: TestDatabase.logger, loadChunkSize: 2).forEachVisiblePost { _ in count += 1 }
            return count
        }
        #expect(count == 0)
    }
}
