import DatabaseTestSupport
import Foundation
import NoticeBoardCore
import NoticeBoardPostgres
import PostgresNIO
import Testing

/// Posts without idempotency keys share insert statements under load: each caller must get back
/// exactly its own post (every optional field present and absent, duplicates of one text
/// included), each stored once, and what the callers were told must be what the database holds.
@Suite(.timeLimit(.minutes(5))) struct BatchedInsertTests {
    static func draft(_ index: Int) -> PostDraft {
        PostDraft(
            lat: -89.9 + Double(index % 1799) / 10, lon: [-180, 180, 0.0000001, 151.2093, -0.5][index % 5],
            heading: index % 3 == 0 ? nil : Double(index % 360), message: index % 10 == 0 ? "the same words" : "note \(index) 美食 \"q\" \\",
            tag: ["food", "lifestyle", "a"][index % 3], accuracy: index % 2 == 0 ? nil : 8.25, floor: index % 4 == 0 ? nil : [-20, 0, 200][index % 3],
            beacon: index % 5 == 0 ? "f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:\(index)" : nil,
            expiresAt: index % 7 == 0 ? 4_102_444_800_000 + Int64(index) : nil, deviceHash: index % 2 == 1 ? "device-\(index % 9)" : nil)
    }

    @Test func concurrentPostsEachGetTheirOwnRow() async throws {
        let endpoint = try await TestDatabase.fresh()
        let count = 600
        let (returned, stored) = try await TestDatabase.withClient(endpoint) { client in
            let store = PostgresPostStore(client: DatabasePool(client), logger: TestDatabase.logger)
            let returned = try await withThrowingTaskGroup(of: (Int, Post).self) { group in
                for index in 0..<count {
                    group.addTask {
                        guard case .created(let post) = try await store.create(Self.draft(index), clientHash: "client-\(index % 4)", idempotency: nil) else {
                            throw StoreError.unavailable("not created")
                        }
                        return (index, post)
                    }
                }
                var returned: [Int: Post] = [:]
                for try await (index, post) in group { returned[index] = post }
                return returned
            }
            var stored: [Int64: Post] = [:]
            try await store.forEachVisiblePost { post, _ in stored[post.id] = post }
            return (returned, stored)
        }
        #expect(returned.count == count)
        #expect(Set(returned.values.map(\.id)).count == count, "two callers were given one row")
        #expect(stored.count == count, "a post was stored twice or not at all")
        for (index, post) in returned {
            let draft = Self.draft(index)
            #expect(post.message == draft.message && post.tag == draft.tag && post.heading == draft.heading && post.accuracy == draft.accuracy)
            #expect(post.floor == draft.floor && post.beacon == draft.beacon && post.expiresAt == draft.expiresAt && post.deviceHash == draft.deviceHash)
            #expect(post.lat == draft.lat && post.lon == draft.lon)
            #expect(stored[post.id] == post, "the caller was told something other than what was stored")
        }
    }
}
