import DatabaseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NoticeBoardCore
import NoticeBoardPostgres
import NoticeBoardServer
import Testing

@Suite(.timeLimit(.minutes(5))) struct PostingTests {
    @Test func aPostIsFoundByTheNextPhoneStandingThere() async throws {
        try await TestApp.make().test { http, _ in
            let created = try await http.postJSON(
                #"{"lat": 22.41961, "lon": 114.20684, "heading": 270.0, "message": "  Too many things on my desk 😢\r\n ", "tag": " LifeStyle ", "accuracy": 8, "floor": 2}"#)
            #expect(created.status == .created)
            let post = try created.decoded(PostBody.self)
            #expect(created.headers[.location] == "/api/v1/posts/\(post.id)")
            #expect(post.id > 0 && post.lat == 22.41961 && post.lon == 114.20684 && post.heading == 270)
            #expect(post.message == "Too many things on my desk 😢" && post.tag == "lifestyle")
            #expect(post.accuracy == 8 && post.floor == 2 && post.beacon == nil)
            #expect(Timestamp.parseCeilingMilliseconds(post.createdAt) != nil && post.createdAt.hasSuffix("Z") && post.createdAt.count == 24)

            let fetched = try await http.get("/api/v1/posts/\(post.id)")
            #expect(fetched.status == .ok)
            #expect(try fetched.decoded(PostBody.self) == post)

            let nearby = try await http.get("/api/v1/posts/nearby?lat=22.4196&lon=114.2068&radius=50").decoded(PageBody.self)
            #expect(nearby.posts.map(\.id) == [post.id])
            #expect(nearby.posts[0].distance! > 0 && nearby.posts[0].distance! < 50)
            #expect(nearby.nextCursor == nil)

            let browse = try await http.get("/api/v1/posts?bbox=114,22,115,23").decoded(PageBody.self)
            #expect(browse.posts.map(\.id) == [post.id] && browse.posts[0].distance == nil)

            // The exact createdAt selects the post: from is inclusive, to exclusive.
            let from = try await http.get("/api/v1/posts?from=\(post.createdAt)").decoded(PageBody.self)
            #expect(from.posts.map(\.id) == [post.id])
            let to = try await http.get("/api/v1/posts?to=\(post.createdAt)").decoded(PageBody.self)
            #expect(to.posts.isEmpty)

            let tags = try await http.get("/api/v1/tags").decoded([String: [[String: TagValue]]].self)
            #expect(tags["tags"]?.first?["tag"] == .text("lifestyle") && tags["tags"]?.first?["count"] == .number(1))
        }
    }

    enum TagValue: Decodable, Equatable {
        case text(String), number(Int)
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int.self) { self = .number(number) } else { self = .text(try container.decode(String.self)) }
        }
    }

    /// `fields=` (an extension) writes only the members asked for, with the same values and
    /// order as the full objects; anything else is a 400 naming `fields`.
    @Test func fieldsSelectTheMembersOfEachPost() async throws {
        try await TestApp.make().test { http, _ in
            for index in 0..<5 {
                #expect(try await http.postJSON(postJSON(lat: 10 + Double(index) * 0.0001, lon: 20, message: "note \(index)")).status == .created)
            }
            func objects(_ uri: String) async throws -> [[String: Any]] {
                let response = try await http.get(uri)
                #expect(response.status == .ok, "\(uri)")
                let page = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as! [String: Any]
                return page["posts"] as! [[String: Any]]
            }
            let nearby = "/api/v1/posts/nearby?lat=10&lon=20&radius=1000"
            let full = try await objects(nearby)
            let slim = try await objects(nearby + "&fields=id,distance")
            #expect(full.count == 5 && slim.count == 5)
            for (whole, part) in zip(full, slim) {
                #expect(Set(part.keys) == ["id", "distance"])
                #expect(part["id"] as? Int64 == whole["id"] as? Int64 && part["distance"] as? Double == whole["distance"] as? Double)
            }
            let browsed = try await objects("/api/v1/posts?bbox=19,9,21,11&fields=message,%20createdAt")
            #expect(browsed.count == 5 && browsed.allSatisfy { Set($0.keys) == ["message", "createdAt"] })
            let slimRaw = String(buffer: try await http.get(nearby + "&fields=bearing,id").body)
            #expect(slimRaw.hasPrefix(#"{"posts":[{"id":"#), "members keep the contract's order: \(slimRaw)")
            for bad in ["fields=", "fields=id,,distance", "fields=ID", "fields=id,password"] {
                let response = try await http.get(nearby + "&" + bad)
                #expect(response.status == .badRequest, "\(bad)")
                #expect(try response.decoded(ErrorBody.self).error.field == "fields", "\(bad)")
            }
            let browseDistance = try await http.get("/api/v1/posts?bbox=19,9,21,11&fields=id,distance")
            #expect(browseDistance.status == .badRequest)
            #expect(try browseDistance.decoded(ErrorBody.self).error.field == "fields")
        }
    }

    @Test func unknownPostsAndRoutesAre404AndWrongMethodsAre405() async throws {
        try await TestApp.make().test { http, _ in
            for uri in ["/api/v1/posts/999", "/api/v1/posts/abc", "/api/v1/posts/-1", "/api/v1/nothing", "/nothing.html"] {
                let response = try await http.get(uri)
                #expect(response.status == .notFound, "\(uri)")
                #expect(try response.decoded(ErrorBody.self).error.code == "not_found")
            }
            let wrongMethod = try await http.execute(uri: "/api/v1/posts/nearby", method: .delete)
            #expect(wrongMethod.status == .methodNotAllowed)
            #expect(try wrongMethod.decoded(ErrorBody.self).error.code == "method_not_allowed")
            #expect(try await http.execute(uri: "/api/v1/posts/5", method: .put).status == .methodNotAllowed)
            #expect(try await http.execute(uri: "/api/v1/posts/abc", method: .head).status == .notFound, "a HEAD is judged as its GET")
            let malformed = try await http.execute(uri: "/api/v1/posts/0/like", method: .put)
            #expect(try malformed.status == .notFound && malformed.decoded(ErrorBody.self).error.message == "no such post")
        }
    }

    @Test(arguments: [
        (#"{"lat": "22.4", "lon": 1, "message": "m", "tag": "t"}"#, "lat"),
        (#"{"lat": 1, "message": "m", "tag": "t"}"#, "lon"),
        (#"{"lat": 1, "lon": 1e999, "message": "m", "tag": "t"}"#, "lon"),
        (#"{"lat": 1, "lon": 1, "message": "m", "tag": "t", "heading": 360}"#, "heading"),
        (#"{"lat": 1, "lon": 1, "message": "", "tag": "t"}"#, "message"),
        (#"{"lat": 1, "lon": 1, "message": "m", "tag": "<script>"}"#, "tag"),
        (#"{"lat": 1, "lon": 1, "message": "m", "tag": "t", "floor": 1.5}"#, "floor"),
        (#"{"lat": 1, "lon": 1, "message": "m", "tag": "t", "accuracy": 10001}"#, "accuracy"),
        (#"{"beacon": "f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:2", "message": "m", "tag": "t"}"#, "beacon"),
        (#"{"lat": 1, "lon": 1, "message": "m", "#, nil),
        (#"[]"#, nil),
        (#"null"#, nil),
    ] as [(String, String?)])
    func badBodiesAre400NamingTheField(body: String, field: String?) async throws {
        try await TestApp.make().test { http, _ in
            let response = try await http.postJSON(body)
            #expect(response.status == .badRequest)
            let error = try response.decoded(ErrorBody.self).error
            #expect(error.code == "invalid_request")
            #expect(error.field == field)
            // Nothing was stored.
            #expect(try await http.get("/api/v1/posts").decoded(PageBody.self).posts.isEmpty)
        }
    }

    @Test func mediaTypeAndSizeLimits() async throws {
        try await TestApp.make().test { http, _ in
            let plain = try await http.postJSON(postJSON(lat: 1, lon: 1), headers: [.contentType: "text/plain"])
            #expect(plain.status == .unsupportedMediaType)
            #expect(try plain.decoded(ErrorBody.self).error.code == "unsupported_media_type")
            let missing = try await http.execute(uri: "/api/v1/posts", method: .post, body: ByteBuffer(string: postJSON(lat: 1, lon: 1)))
            #expect(missing.status == .unsupportedMediaType)
            let charset = try await http.postJSON(postJSON(lat: 1, lon: 1), headers: [.contentType: "application/json; charset=utf-8"])
            #expect(charset.status == .created)

            let big = postJSON(lat: 1, lon: 1, message: String(repeating: "a", count: 17 * 1024))
            let tooLarge = try await http.postJSON(big)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(try tooLarge.decoded(ErrorBody.self).error.code == "payload_too_large")
            // A message over 2000 scalars but under 16 KiB is a 400 on the message.
            let long = try await http.postJSON(postJSON(lat: 1, lon: 1, message: String(repeating: "b", count: 2001)))
            #expect(long.status == .badRequest)
            #expect(try long.decoded(ErrorBody.self).error.field == "message")
        }
    }

    /// Issue 37: a bad key on an empty body was reported as `lat` missing.
    @Test func aBadIdempotencyKeyIsReportedBeforeTheBody() async throws {
        try await TestApp.make().test { http, _ in
            let long: HTTPFields = [HTTPField.Name("Idempotency-Key")!: String(repeating: "k", count: 201)]
            for uri in ["/api/v1/posts", "/api/v1/posts/1/replies"] {
                for body in ["{}", ""] {
                    let response = try await http.postJSON(body, headers: long, uri: uri)
                    #expect(response.status == .badRequest, "\(uri) \(body)")
                    #expect(try response.decoded(ErrorBody.self).error.field == "Idempotency-Key", "\(uri) \(body)")
                }
            }
        }
    }

    @Test func idempotentRetriesCreateOnePost() async throws {
        try await TestApp.make().test { http, _ in
            let body = postJSON(lat: 10, lon: 20, message: "once")
            let first = try await http.postJSON(body, headers: [HTTPField.Name("Idempotency-Key")!: "key-1"])
            #expect(first.status == .created)
            // Same content spelled differently is the same request.
            let respelled = #"{"tag":"food","message":"once","lon":20,"lat":10.0}"#
            let retry = try await http.postJSON(respelled, headers: [HTTPField.Name("Idempotency-Key")!: "key-1"])
            #expect(retry.status == .ok)
            #expect(try retry.decoded(PostBody.self) == first.decoded(PostBody.self))
            let conflict = try await http.postJSON(postJSON(lat: 10, lon: 20, message: "other"), headers: [HTTPField.Name("Idempotency-Key")!: "key-1"])
            #expect(conflict.status == .conflict)
            #expect(try conflict.decoded(ErrorBody.self).error.code == "conflict")
            for bad in ["", String(repeating: "k", count: 201)] {
                let response = try await http.postJSON(body, headers: [HTTPField.Name("Idempotency-Key")!: bad])
                #expect(response.status == .badRequest)
                #expect(try response.decoded(ErrorBody.self).error.field == "Idempotency-Key")
            }
            #expect(try await http.get("/api/v1/posts").decoded(PageBody.self).posts.count == 1)
        }
    }

    @Test func simultaneousDuplicatesCreateOnePost() async throws {
        try await TestApp.make().test { http, _ in
            let body = postJSON(lat: 1, lon: 2, message: "race")
            let statuses = try await withThrowingTaskGroup(of: (HTTPResponse.Status, Int64).self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        let response = try await http.postJSON(body, headers: [HTTPField.Name("Idempotency-Key")!: "race-key"])
                        return (response.status, try response.decoded(PostBody.self).id)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == .created }.count == 1)
            #expect(statuses.allSatisfy { $0.0 == .created || $0.0 == .ok })
            #expect(Set(statuses.map(\.1)).count == 1)
            #expect(try await http.get("/api/v1/posts").decoded(PageBody.self).posts.count == 1)
        }
    }

    @Test func postingIsRateLimitedPerClientAndOnlyCreatedPostsCount() async throws {
        var app = try await TestApp.make()
        app.settings = ServerSettings(port: 0, postRatePerMinute: 2, postBurst: 2, trustedProxies: ["127.0.0.1"])
        try await app.test(.live) { http, _ in
            let alice: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "203.0.113.7"]
            // Bad requests do not spend the allowance.
            for _ in 0..<3 { #expect(try await http.postJSON("{}", headers: alice).status == .badRequest) }
            #expect(try await http.postJSON(postJSON(lat: 1, lon: 1), headers: alice).status == .created)
            var keyed = alice
            keyed[HTTPField.Name("Idempotency-Key")!] = "alice-1"
            #expect(try await http.postJSON(postJSON(lat: 1, lon: 2), headers: keyed).status == .created)
            let limited = try await http.postJSON(postJSON(lat: 1, lon: 3), headers: alice)
            #expect(limited.status == .tooManyRequests)
            #expect(try limited.decoded(ErrorBody.self).error.code == "rate_limited")
            let retryAfter = try #require(limited.headers[.retryAfter].flatMap { Int($0) })
            #expect(retryAfter >= 1 && retryAfter <= 60)
            // A replay is answered even over the limit; it creates nothing.
            #expect(try await http.postJSON(postJSON(lat: 1, lon: 2), headers: keyed).status == .ok)
            // Another client has its own allowance.
            let bob: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "198.51.100.1"]
            #expect(try await http.postJSON(postJSON(lat: 1, lon: 4), headers: bob).status == .created)
            #expect(try await http.get("/api/v1/posts").decoded(PageBody.self).posts.count == 3)
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct IdempotencyRetentionTests {
    @Test func keysOlderThanTheRetentionArePurgedAndRecentOnesKept() async throws {
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            let store = PostgresPostStore(client: DatabasePool(client), logger: TestDatabase.logger)
            let draft = PostDraft(lat: 1, lon: 2, message: "m", tag: "t")
            _ = try await store.create(draft, clientHash: nil, idempotency: IdempotencyRequest(key: "old", fingerprint: "a"))
            _ = try await store.create(draft, clientHash: nil, idempotency: IdempotencyRequest(key: "new", fingerprint: "a"))
            try await client.query("UPDATE idempotency_keys SET created_at = now() - interval '8 days' WHERE key = 'old'")
            #expect(try await store.purgeIdempotencyKeys(olderThanDays: 7) == 1)
            #expect(try await store.existingPost(for: IdempotencyRequest(key: "new", fingerprint: "a")) != nil)
            #expect(try await store.existingPost(for: IdempotencyRequest(key: "old", fingerprint: "a")) == nil)
        }
    }
}
