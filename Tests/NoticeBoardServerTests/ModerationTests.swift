import DatabaseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NoticeBoardCore
import NoticeBoardPostgres
import NoticeBoardServer
import Testing

@Suite(.timeLimit(.minutes(5))) struct ModerationTests {
    struct TokenBody: Decodable {
        var token: String
        var expiresAt: String
    }

    struct AuditBody: Decodable {
        struct Entry: Decodable {
            var at: String
            var actor: String
            var action: String
            var postId: Int64?
            var reason: String?
        }
        var entries: [Entry]
        var nextCursor: String?
    }

    struct ModeratedBody: Decodable {
        var id: Int64
        var message: String
        var status: String
        var reportCount: Int
        var clientId: String?
    }

    struct ModeratedPage: Decodable {
        var posts: [ModeratedBody]
        var nextCursor: String?
    }

    /// A fresh app with one moderator, "mod" / "correct horse".
    static func app(threshold: Int = 5) async throws -> TestApp {
        var app = try await TestApp.make()
        app.settings.reportThreshold = threshold
        let (added, addedTwice) = try await TestDatabase.withClient(app.endpoint) { client throws -> (Bool, Bool) in
            let store = PostgresModerationStore(client: DatabasePool(client), logger: TestDatabase.logger)
            let first = try await store.addModerator(username: "mod", passwordHash: ModeratorAuth.hashPassword("correct horse"))
            return (first, try await store.addModerator(username: "mod", passwordHash: "x"))
        }
        #expect(added && !addedTwice)
        return app
    }

    static func login(_ http: any TestClientProtocol, _ user: String = "mod", _ password: String = "correct horse") async throws -> TestResponse {
        try await http.postJSON(#"{"username": "\#(user)", "password": "\#(password)"}"#, uri: "/api/v1/auth/token")
    }

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)", .contentType: "application/json"] }

    @Test func everyModerationEndpointWantsAValidToken() async throws {
        try await Self.app().test { http, _ in
            let wrong = try await Self.login(http, "mod", "wrong")
            let unknown = try await Self.login(http, "nobody", "correct horse")
            #expect(wrong.status == .unauthorized && unknown.status == .unauthorized)
            #expect(String(buffer: wrong.body) == String(buffer: unknown.body), "the same answer whether the user exists or not")
            let session = try await Self.login(http).decoded(TokenBody.self)
            #expect(session.token.count >= 43 && Timestamp.parseCeilingMilliseconds(session.expiresAt) != nil)
            let endpoints: [(HTTPRequest.Method, String)] = [
                (.get, "/api/v1/moderation/posts"), (.get, "/api/v1/moderation/posts/1"), (.post, "/api/v1/moderation/posts/1/hide"),
                (.post, "/api/v1/moderation/posts/1/restore"), (.delete, "/api/v1/moderation/posts/1"), (.get, "/api/v1/moderation/audit"),
            ]
            for (method, uri) in endpoints {
                for headers: HTTPFields in [[:], Self.bearer("forged-token"), [.authorization: "Basic bW9kOmNvcnJlY3QgaG9yc2U="]] {
                    let response = try await http.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(string: #"{"reason":"x"}"#))
                    #expect(response.status == .unauthorized, "\(method) \(uri)")
                    #expect(try response.decoded(ErrorBody.self).error.code == "unauthorized")
                }
            }
            #expect(try await http.execute(uri: "/api/v1/moderation/audit", method: .get, headers: Self.bearer(session.token)).status == .ok)
            // Revoked at once.
            #expect(try await http.execute(uri: "/api/v1/auth/token", method: .delete, headers: Self.bearer(session.token)).status == .noContent)
            #expect(try await http.execute(uri: "/api/v1/moderation/audit", method: .get, headers: Self.bearer(session.token)).status == .unauthorized)
        }
    }

    @Test func hideRestoreDeleteTakeEffectEverywhereAndAreAudited() async throws {
        try await Self.app().test { http, board in
            let token = try await Self.login(http).decoded(TokenBody.self).token
            let post = try await http.postJSON(postJSON(lat: 48.85, lon: 2.35, message: "abuse", tag: "food")).decoded(PostBody.self)
            let keep = try await http.postJSON(postJSON(lat: 48.85, lon: 2.35, message: "fine", tag: "food")).decoded(PostBody.self)
            let nearby = "/api/v1/posts/nearby?lat=48.85&lon=2.35&radius=100"

            let missingReason = try await http.execute(uri: "/api/v1/moderation/posts/\(post.id)/hide", method: .post, headers: Self.bearer(token), body: ByteBuffer(string: "{}"))
            #expect(missingReason.status == .badRequest)
            #expect(try missingReason.decoded(ErrorBody.self).error.field == "reason")

            let hidden = try await http.execute(uri: "/api/v1/moderation/posts/\(post.id)/hide", method: .post, headers: Self.bearer(token), body: ByteBuffer(string: #"{"reason":"spam"}"#))
            #expect(hidden.status == .ok)
            #expect(try hidden.decoded(ModeratedBody.self).status == "hidden")
            #expect(try await http.get("/api/v1/posts/\(post.id)").status == .notFound)
            // Moderators still read it by its id, with its status.
            let one = try await http.execute(uri: "/api/v1/moderation/posts/\(post.id)", method: .get, headers: Self.bearer(token)).decoded(ModeratedBody.self)
            #expect(one.id == post.id && one.status == "hidden" && one.message == "abuse")
            #expect(try await http.get(nearby).decoded(PageBody.self).posts.map(\.id) == [keep.id])
            #expect(try await http.get("/api/v1/posts").decoded(PageBody.self).posts.map(\.id) == [keep.id])
            #expect(board.postCount == 1)

            let restored = try await http.execute(uri: "/api/v1/moderation/posts/\(post.id)/restore", method: .post, headers: Self.bearer(token))
            #expect(restored.status == .ok)
            #expect(Set(try await http.get(nearby).decoded(PageBody.self).posts.map(\.id)) == [post.id, keep.id])

            let deleted = try await http.execute(uri: "/api/v1/moderation/posts/\(post.id)", method: .delete, headers: Self.bearer(token), body: ByteBuffer(string: #"{"reason":"illegal"}"#))
            #expect(deleted.status == .noContent)
            #expect(try await http.get(nearby).decoded(PageBody.self).posts.map(\.id) == [keep.id])
            let again = try await http.execute(uri: "/api/v1/moderation/posts/\(post.id)/restore", method: .post, headers: Self.bearer(token))
            #expect(again.status == .conflict)

            let all = try await http.execute(uri: "/api/v1/moderation/posts?status=deleted", method: .get, headers: Self.bearer(token)).decoded(ModeratedPage.self)
            #expect(all.posts.map(\.id) == [post.id] && all.posts[0].message == "" && all.posts[0].status == "deleted")
            let audit = try await http.execute(uri: "/api/v1/moderation/audit", method: .get, headers: Self.bearer(token)).decoded(AuditBody.self)
            #expect(audit.entries.map(\.action) == ["delete", "restore", "hide"])
            #expect(audit.entries.allSatisfy { $0.actor == "mod" && $0.postId == post.id })
            #expect(audit.entries.map(\.reason) == ["illegal", nil, "spam"])
            let erased = try await http.execute(uri: "/api/v1/moderation/posts/\(post.id)", method: .get, headers: Self.bearer(token)).decoded(ModeratedBody.self)
            #expect(erased.status == "deleted" && erased.message == "")
            let unknown = try await http.execute(uri: "/api/v1/moderation/posts/99999/hide", method: .post, headers: Self.bearer(token), body: ByteBuffer(string: #"{"reason":"x"}"#))
            #expect(unknown.status == .notFound)
            for missing in ["99999", "0", "abc", "99999999999999999999"] {
                let response = try await http.execute(uri: "/api/v1/moderation/posts/\(missing)", method: .get, headers: Self.bearer(token))
                #expect(response.status == .notFound, "\(missing)")
                #expect(try response.decoded(ErrorBody.self).error.code == "not_found")
            }
        }
    }

    @Test func reportsCountOnceAndHideAtTheThreshold() async throws {
        var app = try await Self.app(threshold: 2)
        app.settings.trustedProxies = ["127.0.0.1"]
        try await app.test(.live) { http, _ in
            let post = try await http.postJSON(postJSON(lat: 1, lon: 1)).decoded(PostBody.self)
            func report(from address: String, _ body: String = #"{"reason": "rude"}"#, id: Int64? = nil) async throws -> TestResponse {
                try await http.postJSON(body, headers: [HTTPField.Name("X-Forwarded-For")!: address], uri: "/api/v1/posts/\(id ?? post.id)/reports")
            }
            #expect(try await report(from: "203.0.113.1", "{}").status == .badRequest)
            let first = try await report(from: "203.0.113.1")
            #expect(first.status == .accepted)
            #expect(String(buffer: first.body) == #"{"reportCount":1,"status":"reported"}"#)
            #expect(try await report(from: "203.0.113.1").status == .ok, "a repeat counts once")
            #expect(try await report(from: "203.0.113.1", id: 4242).status == .notFound)
            #expect(try await http.get("/api/v1/posts/\(post.id)").status == .ok)
            #expect(try await report(from: "198.51.100.9").status == .accepted)
            #expect(try await http.get("/api/v1/posts/\(post.id)").status == .notFound, "hidden at 2 distinct reporters")
            #expect(try await report(from: "192.0.2.1").status == .notFound, "a hidden post takes no reports")

            let token = try await Self.login(http).decoded(TokenBody.self).token
            let reported = try await http.execute(uri: "/api/v1/moderation/posts?reported=true", method: .get, headers: Self.bearer(token)).decoded(ModeratedPage.self)
            #expect(reported.posts.map(\.id) == [post.id] && reported.posts[0].reportCount == 2 && reported.posts[0].status == "hidden")
            let clientId = try #require(reported.posts[0].clientId)
            let sameClient = try await http.execute(uri: "/api/v1/moderation/posts?clientId=\(clientId)", method: .get, headers: Self.bearer(token)).decoded(ModeratedPage.self)
            #expect(sameClient.posts.map(\.id) == [post.id])
            let audit = try await http.execute(uri: "/api/v1/moderation/audit", method: .get, headers: Self.bearer(token)).decoded(AuditBody.self)
            #expect(audit.entries.first?.action == "auto_hide" && audit.entries.first?.actor == "system")
        }
    }
}
