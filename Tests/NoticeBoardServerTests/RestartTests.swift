import BoardTestSupport
import HummingbirdTesting
import NoticeBoardCore
import Testing

/// A second server on the same database (a restart) rebuilds the same index from PostgreSQL.
@Suite(.timeLimit(.minutes(5))) struct RestartTests {
    @Test func aRestartedServerServesEveryAcknowledgedPost() async throws {
        let app = try await TestApp.make()
        let created: [PostBody] = try await app.test { http, _ in
            var posts: [PostBody] = []
            for i in 0..<40 {
                let response = try await http.postJSON(
                    postJSON(lat: 48.85 + Double(i) * 1e-4, lon: i % 2 == 0 ? 180 : -179.9999, message: "note \(i)", tag: i % 3 == 0 ? "food" : "fashion"))
                #expect(response.status == .created)
                posts.append(try response.decoded(PostBody.self))
            }
            return posts
        }
        try await app.test { http, board in
            #expect(board.postCount == created.count)
            let browse = try await http.allPages("/api/v1/posts?limit=7")
            #expect(Set(browse.map(\.id)) == Set(created.map(\.id)))
            for post in created.prefix(5) {
                #expect(try await http.get("/api/v1/posts/\(post.id)").decoded(PostBody.self) == post)
            }
            let nearby = try await http.allPages("/api/v1/posts/nearby?lat=48.852&lon=180&radius=50000&limit=9")
            #expect(nearby.count == created.count)
            let tags = try await http.get("/api/v1/tags").decoded(TagsBody.self).tags
            #expect(tags == [.init(tag: "fashion", count: 26), .init(tag: "food", count: 14)])
        }
    }

    struct TagsBody: Decodable {
        struct Entry: Decodable, Equatable {
            var tag: String
            var count: Int
        }
        var tags: [Entry]
    }
}
