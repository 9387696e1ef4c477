import DatabaseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NoticeBoardCore
import NoticeBoardPostgres
import NoticeBoardServer
import Testing

/// Likes, replies, deleting your own note, lifetimes and the board at an instant, through the
/// HTTP routes on a real database.
@Suite(.timeLimit(.minutes(5))) struct ReactionTests {
    static let alice = "alice-device-key-0001"
    static let bob = "bob-device-key-000002"

    static func device(_ key: String, _ extra: HTTPFields = [:]) -> HTTPFields {
        var fields = extra
        fields[HTTPField.Name("X-Device-Key")!] = key
        fields[.contentType] = "application/json"
        return fields
    }

    /// The response's JSON object; an empty one (and a recorded issue) when it is not one.
    static func object(_ response: TestResponse) -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] else {
            Issue.record("not a JSON object: \(String(buffer: response.body))")
            return [:]
        }
        return object
    }

    /// The field an error response names.
    static func field(_ response: TestResponse) -> String? {
        (try? response.decoded(ErrorBody.self))?.error.field
    }

    static func post(_ http: any TestClientProtocol, key: String? = nil, extra: String = "", lat: Double = 22.4196) async throws -> [String: Any] {
        let response = try await http.postJSON(postJSON(lat: lat, lon: 114.2068, extra: extra), headers: key.map { device($0) } ?? [:])
        #expect(response.status == .created, "\(String(buffer: response.body))")
        return object(response)
    }

    @Test func aLikeIsOnePerDeviceAndShowsEverywhere() async throws {
        try await ModerationTests.app().test { http, _ in
            let post = try await Self.post(http, key: Self.alice)
            let id = post["id"] as! Int
            #expect(post["likeCount"] as? Int == 0 && post["replyCount"] as? Int == 0 && post["expiresAt"] is NSNull)
            #expect(post["mine"] as? Bool == true && post["likedByMe"] as? Bool == false)
            for _ in 0..<2 {
                let liked = try await http.execute(uri: "/api/v1/posts/\(id)/like", method: .put, headers: Self.device(Self.bob))
                #expect(liked.status == .ok)
                let body = Self.object(liked)
                #expect(body["likeCount"] as? Int == 1 && body["likedByMe"] as? Bool == true, "idempotent per device")
            }
            let second = try await http.execute(uri: "/api/v1/posts/\(id)/like", method: .put, headers: Self.device(Self.alice))
            #expect(Self.object(second)["likeCount"] as? Int == 2)

            let asBob = Self.object(try await http.execute(uri: "/api/v1/posts/\(id)", method: .get, headers: Self.device(Self.bob)))
            #expect(asBob["likeCount"] as? Int == 2 && asBob["likedByMe"] as? Bool == true && asBob["mine"] as? Bool == false)
            let anonymous = Self.object(try await http.get("/api/v1/posts/\(id)"))
            #expect(anonymous["likeCount"] as? Int == 2 && anonymous["likedByMe"] == nil && anonymous["mine"] == nil)
            for uri in ["/api/v1/posts/nearby?lat=22.4196&lon=114.2068", "/api/v1/posts?bbox=114,22,115,23"] {
                let page = Self.object(try await http.execute(uri: uri, method: .get, headers: Self.device(Self.bob)))
                let first = (page["posts"] as! [[String: Any]])[0]
                #expect(first["likeCount"] as? Int == 2 && first["likedByMe"] as? Bool == true && first["mine"] as? Bool == false, "\(uri)")
            }

            let unliked = try await http.execute(uri: "/api/v1/posts/\(id)/like", method: .delete, headers: Self.device(Self.bob))
            #expect(Self.object(unliked)["likeCount"] as? Int == 1 && (Self.object(unliked)["likedByMe"] as? Bool) == false)
            let again = try await http.execute(uri: "/api/v1/posts/\(id)/like", method: .delete, headers: Self.device(Self.bob))
            #expect(Self.object(again)["likeCount"] as? Int == 1)

            let noKey = try await http.execute(uri: "/api/v1/posts/\(id)/like", method: .put)
            #expect(noKey.status == .badRequest && (Self.field(noKey)) == "X-Device-Key")
            for bad in ["short", String(repeating: "a", count: 129), "has spaces in it........", "ümlaut-key-0000000000"] {
                var headers = HTTPFields()
                headers[HTTPField.Name("X-Device-Key")!] = bad
                let malformed = try await http.execute(uri: "/api/v1/posts/\(id)", method: .get, headers: headers)
                #expect(malformed.status == .badRequest && (Self.field(malformed)) == "X-Device-Key", "\(bad)")
            }
            let unknown = try await http.execute(uri: "/api/v1/posts/999999/like", method: .put, headers: Self.device(Self.bob))
            #expect(unknown.status == .notFound)

            let token = try await ModerationTests.login(http).decoded(ModerationTests.TokenBody.self).token
            let listed = Self.object(try await http.execute(uri: "/api/v1/moderation/posts", method: .get, headers: ModerationTests.bearer(token)))
            #expect((listed["posts"] as! [[String: Any]])[0]["likeCount"] as? Int == 1)
            _ = try await http.execute(
                uri: "/api/v1/moderation/posts/\(id)/hide", method: .post, headers: ModerationTests.bearer(token), body: ByteBuffer(string: #"{"reason":"spam"}"#))
            let hidden = try await http.execute(uri: "/api/v1/posts/\(id)/like", method: .put, headers: Self.device(Self.bob))
            #expect(hidden.status == .notFound)
        }
    }

    @Test func aHundredDevicesLikingAndUnlikingAtOnceLeaveTheRightCount() async throws {
        var app = try await TestApp.make()
        app.settings.likeRatePerMinute = 0
        try await app.test { http, board in
            let id = try await Self.post(http)["id"] as! Int
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for device in 0..<100 {
                    group.addTask {
                        let key = "device-\(String(format: "%012d", device))"
                        // Both calls are idempotent: a client retries a 503 (the database busy past
                        // its deadline while the rest of the suite runs beside this test).
                        func call(_ method: HTTPRequest.Method) async throws -> HTTPResponse.Status {
                            for _ in 0..<5 {
                                let status = try await http.execute(uri: "/api/v1/posts/\(id)/like", method: method, headers: Self.device(key)).status
                                if status != .serviceUnavailable { return status }
                            }
                            return .serviceUnavailable
                        }
                        let like = try await call(.put)
                        guard device % 2 == 0 else { return like }
                        return try await call(.delete)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == .ok }, "\(Dictionary(grouping: statuses, by: \.code).mapValues(\.count))")
            #expect(Self.object(try await http.get("/api/v1/posts/\(id)"))["likeCount"] as? Int == 50)
            #expect(board.post(id: Int64(id))?.likeCount == 50)
        }
    }

    @Test func likesAreRateLimitedPerClientAndAFailedLikeDoesNotCount() async throws {
        var app = try await TestApp.make()
        app.settings.likeRatePerMinute = 4
        try await app.test { http, _ in
            let id = try await Self.post(http)["id"] as! Int
            // Unknown posts give back their token: they do not use up the client's likes.
            for _ in 0..<5 { #expect(try await http.execute(uri: "/api/v1/posts/0\(id)9/like", method: .put, headers: Self.device(Self.bob)).status == .notFound) }
            var statuses: [HTTPResponse.Status] = []
            var retryAfter: String?
            for device in 0..<3 {
                let response = try await http.execute(uri: "/api/v1/posts/\(id)/like", method: .put, headers: Self.device("limited-\(String(format: "%012d", device))"))
                statuses.append(response.status)
                retryAfter = retryAfter ?? response.headers[.retryAfter]
            }
            #expect(statuses == [.ok, .tooManyRequests, .tooManyRequests], "a burst of one at 4 a minute")
            #expect(retryAfter.flatMap(Int.init).map { $0 >= 1 } == true)
            #expect(Self.object(try await http.get("/api/v1/posts/\(id)"))["likeCount"] as? Int == 1)
        }
    }

    @Test func aLikeThatChangesNothingIsNotCounted() async throws {
        var app = try await TestApp.make()
        app.settings.likeRatePerMinute = 3  // a burst of one, one more every 20 s
        try await app.test { http, _ in
            let id = try await Self.post(http)["id"] as! Int
            // Unliking what a device never liked changes nothing: the token comes back each time.
            for device in 0..<10 {
                let unlike = try await http.execute(
                    uri: "/api/v1/posts/\(id)/like", method: .delete, headers: Self.device("never-liked-\(String(format: "%09d", device))"))
                #expect(unlike.status == .ok)
            }
            #expect(try await http.execute(uri: "/api/v1/posts/\(id)/like", method: .put, headers: Self.device(Self.bob)).status == .ok)
            #expect(try await http.execute(uri: "/api/v1/posts/\(id)/like", method: .put, headers: Self.device(Self.alice)).status == .tooManyRequests)
            #expect(Self.object(try await http.get("/api/v1/posts/\(id)"))["likeCount"] as? Int == 1)
        }
    }

    @Test(.timeLimit(.minutes(2))) func repliesFormAThreadOldestFirstMarkedForTheAuthor() async throws {
        try await ModerationTests.app().test { http, board in
            let id = try await Self.post(http, key: Self.alice)["id"] as! Int
            let subscription = board.feed.subscribe(after: nil)
            var replyIds: [Int] = []
            for (key, text) in [(Self.bob, "first"), (Self.alice, "the author answers"), (Self.bob, "third")] {
                let created = try await http.postJSON(#"{"message": "  \#(text) "}"#, headers: Self.device(key), uri: "/api/v1/posts/\(id)/replies")
                #expect(created.status == .created)
                let reply = Self.object(created)
                #expect(reply["postId"] as? Int == id && reply["message"] as? String == text)
                #expect(reply["byAuthor"] as? Bool == (key == Self.alice) && reply["mine"] as? Bool == true)
                replyIds.append(reply["id"] as! Int)
            }
            var events = subscription.events.makeAsyncIterator()
            var heard: [Int64] = []
            while heard.count < 3, let event = await events.next() {
                if case .reply(let reply, let post) = event.event, post.id == Int64(id) { heard.append(reply.id) }
            }
            #expect(heard == replyIds.map(Int64.init), "streams hear every reply once, in order")

            var thread: [Int] = []
            var cursor: String?
            repeat {
                let page = Self.object(try await http.get("/api/v1/posts/\(id)/replies?limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")))
                thread += (page["replies"] as! [[String: Any]]).map { $0["id"] as! Int }
                cursor = page["nextCursor"] as? String
            } while cursor != nil
            #expect(thread == replyIds)
            #expect(Self.object(try await http.get("/api/v1/posts/\(id)"))["replyCount"] as? Int == 3)

            // Retries with one key make one reply; another body under it is a conflict.
            let key: HTTPFields = Self.device(Self.bob, [HTTPField.Name("Idempotency-Key")!: "reply-once"])
            let first = try await http.postJSON(#"{"message": "once"}"#, headers: key, uri: "/api/v1/posts/\(id)/replies")
            let retry = try await http.postJSON(#"{"message": "once"}"#, headers: key, uri: "/api/v1/posts/\(id)/replies")
            #expect(first.status == .created && (retry.status == .ok || retry.status == .created))
            #expect(Self.object(first)["id"] as? Int == (Self.object(retry)["id"] as? Int))
            let conflict = try await http.postJSON(#"{"message": "other"}"#, headers: key, uri: "/api/v1/posts/\(id)/replies")
            #expect(conflict.status == .conflict)
            let asPost = try await http.postJSON(postJSON(lat: 1, lon: 1), headers: key)
            #expect(asPost.status == .conflict, "a reply's key cannot make a post")
            #expect(Self.object(try await http.get("/api/v1/posts/\(id)"))["replyCount"] as? Int == 4)

            let empty = try await http.postJSON(#"{"message": "   "}"#, uri: "/api/v1/posts/\(id)/replies")
            #expect(empty.status == .badRequest && (Self.field(empty)) == "message")
            #expect(try await http.postJSON(#"{"message": "x"}"#, uri: "/api/v1/posts/999999/replies").status == .notFound)

            // A moderator hides a reply: it leaves the thread and the count, and the audit names it.
            let token = try await ModerationTests.login(http).decoded(ModerationTests.TokenBody.self).token
            let hide = try await http.execute(
                uri: "/api/v1/moderation/replies/\(replyIds[0])/hide", method: .post, headers: ModerationTests.bearer(token),
                body: ByteBuffer(string: #"{"reason": "rude"}"#))
            #expect(hide.status == .ok && (Self.object(hide)["status"] as? String) == "hidden")
            let after = Self.object(try await http.get("/api/v1/posts/\(id)/replies"))
            #expect((after["replies"] as! [[String: Any]]).map { $0["id"] as! Int } == Array(replyIds.dropFirst()) + [Self.object(first)["id"] as! Int])
            #expect(Self.object(try await http.get("/api/v1/posts/\(id)"))["replyCount"] as? Int == 3)
            let audit = Self.object(try await http.execute(uri: "/api/v1/moderation/audit", method: .get, headers: ModerationTests.bearer(token)))
            let entry = (audit["entries"] as! [[String: Any]])[0]
            #expect(entry["action"] as? String == "hide" && entry["replyId"] as? Int == replyIds[0] && entry["postId"] as? Int == id)
            let listed = Self.object(
                try await http.execute(uri: "/api/v1/moderation/replies?postId=\(id)&status=hidden", method: .get, headers: ModerationTests.bearer(token)))
            #expect((listed["replies"] as! [[String: Any]]).map { $0["id"] as! Int } == [replyIds[0]])
            let restore = try await http.execute(
                uri: "/api/v1/moderation/replies/\(replyIds[0])/restore", method: .post, headers: ModerationTests.bearer(token))
            #expect(restore.status == .ok)
            #expect(Self.object(try await http.get("/api/v1/posts/\(id)"))["replyCount"] as? Int == 4)
            let delete = try await http.execute(
                uri: "/api/v1/moderation/replies/\(replyIds[2])", method: .delete, headers: ModerationTests.bearer(token),
                body: ByteBuffer(string: #"{"reason": "gone"}"#))
            #expect(delete.status == .noContent)
            let restoreDeleted = try await http.execute(
                uri: "/api/v1/moderation/replies/\(replyIds[2])/restore", method: .post, headers: ModerationTests.bearer(token))
            #expect(restoreDeleted.status == .conflict)
            // Streams hear each reply leave and come back, with the note's count after.
            var changes: [String] = []
            while changes.count < 3, let event = await events.next() {
                switch event.event {
                case .reply(let reply, let post) where [replyIds[0], replyIds[2]].contains(Int(reply.id)):
                    changes.append("shown \(reply.id) \(post.replyCount)")
                case .replyRemoved(let reply, let post): changes.append("gone \(reply) \(post.replyCount)")
                default: continue
                }
            }
            #expect(changes == ["gone \(replyIds[0]) 3", "shown \(replyIds[0]) 4", "gone \(replyIds[2]) 3"])

            // A hidden post's thread is gone with it.
            _ = try await http.execute(
                uri: "/api/v1/moderation/posts/\(id)/hide", method: .post, headers: ModerationTests.bearer(token), body: ByteBuffer(string: #"{"reason":"x"}"#))
            #expect(try await http.get("/api/v1/posts/\(id)/replies").status == .notFound)
            #expect(try await http.postJSON(#"{"message": "late"}"#, uri: "/api/v1/posts/\(id)/replies").status == .notFound)
        }
    }

    @Test func reportsFromEnoughClientsHideAReply() async throws {
        var app = try await ModerationTests.app(threshold: 2)
        app.settings.trustedProxies = ["127.0.0.1", "unknown"]
        try await app.test(.live) { http, _ in
            let id = try await Self.post(http)["id"] as! Int
            let reply = Self.object(try await http.postJSON(#"{"message": "rude"}"#, uri: "/api/v1/posts/\(id)/replies"))["id"] as! Int
            for (client, expected) in [("10.0.0.1", HTTPResponse.Status.accepted), ("10.0.0.1", .ok), ("10.0.0.2", .accepted)] {
                let report = try await http.postJSON(
                    #"{"reason": "rude"}"#, headers: [HTTPField.Name("X-Forwarded-For")!: client], uri: "/api/v1/replies/\(reply)/reports")
                #expect(report.status == expected, "\(client)")
            }
            let thread = Self.object(try await http.get("/api/v1/posts/\(id)/replies"))
            #expect((thread["replies"] as! [Any]).isEmpty)
            #expect(Self.object(try await http.get("/api/v1/posts/\(id)"))["replyCount"] as? Int == 0)
            #expect(try await http.postJSON(#"{"reason": "x"}"#, uri: "/api/v1/replies/\(reply)/reports").status == .notFound)
        }
    }

    @Test func onlyTheDeviceThatMadeANoteMayDeleteIt() async throws {
        try await ModerationTests.app().test { http, _ in
            let id = try await Self.post(http, key: Self.alice)["id"] as! Int
            let anonymous = try await Self.post(http)["id"] as! Int
            #expect(try await http.execute(uri: "/api/v1/posts/\(id)", method: .delete).status == .forbidden)
            #expect(try await http.execute(uri: "/api/v1/posts/\(id)", method: .delete, headers: Self.device(Self.bob)).status == .forbidden)
            #expect(try await http.execute(uri: "/api/v1/posts/\(anonymous)", method: .delete, headers: Self.device(Self.alice)).status == .forbidden)
            #expect(try await http.execute(uri: "/api/v1/posts/\(id)", method: .delete, headers: Self.device(Self.alice)).status == .noContent)
            #expect(try await http.get("/api/v1/posts/\(id)").status == .notFound)
            #expect(try await http.execute(uri: "/api/v1/posts/\(id)", method: .delete, headers: Self.device(Self.alice)).status == .notFound)
            #expect(try await http.execute(uri: "/api/v1/posts/999999", method: .delete, headers: Self.device(Self.alice)).status == .notFound)
            let token = try await ModerationTests.login(http).decoded(ModerationTests.TokenBody.self).token
            let audit = Self.object(try await http.execute(uri: "/api/v1/moderation/audit", method: .get, headers: ModerationTests.bearer(token)))
            let entry = (audit["entries"] as! [[String: Any]])[0]
            #expect(entry["action"] as? String == "author_delete" && entry["postId"] as? Int == id && entry["replyId"] is NSNull)
            let deleted = Self.object(
                try await http.execute(uri: "/api/v1/moderation/posts?status=deleted", method: .get, headers: ModerationTests.bearer(token)))
            let row = (deleted["posts"] as! [[String: Any]])[0]
            #expect(row["id"] as? Int == id && row["message"] as? String == "")

            // A note hidden for review is not the author's to erase: 404, as everywhere public, and its text stays.
            let reported = try await Self.post(http, key: Self.alice)["id"] as! Int
            let hide = try await http.execute(
                uri: "/api/v1/moderation/posts/\(reported)/hide", method: .post, headers: ModerationTests.bearer(token),
                body: ByteBuffer(string: #"{"reason": "abuse"}"#))
            #expect(hide.status == .ok)
            #expect(try await http.execute(uri: "/api/v1/posts/\(reported)", method: .delete, headers: Self.device(Self.alice)).status == .notFound)
            let kept = Self.object(try await http.execute(uri: "/api/v1/moderation/posts/\(reported)", method: .get, headers: ModerationTests.bearer(token)))
            #expect(kept["status"] as? String == "hidden" && (kept["message"] as? String)?.isEmpty == false)
        }
    }

    @Test func aLifetimeIsValidatedAndEndsTheNoteOnTheLiveBoardOnly() async throws {
        try await TestApp.make().test { http, board in
            let now = Timestamp.nowMilliseconds()
            for (text, field) in [
                (Timestamp.format(milliseconds: now + 30_000), "expiresAt"), (Timestamp.format(milliseconds: now + 367 * 86_400_000), "expiresAt"),
                ("tomorrow", "expiresAt"),
            ] {
                let refused = try await http.postJSON(postJSON(lat: 1, lon: 1, extra: #", "expiresAt": "\#(text)""#))
                #expect(refused.status == .badRequest && (Self.field(refused)) == field, "\(text)")
            }
            let numeric = try await http.postJSON(postJSON(lat: 1, lon: 1, extra: #", "expiresAt": 12"#))
            #expect(numeric.status == .badRequest && (Self.field(numeric)) == "expiresAt")
            let day = Timestamp.format(milliseconds: now + 86_400_000)
            let lasting = try await Self.post(http, extra: #", "expiresAt": "\#(day)""#)
            #expect(lasting["expiresAt"] as? String == day)

            // A note due to end ten seconds from now (validated against a clock a minute behind); the
            // clock is read afresh, as the requests above can take seconds on a busy machine.
            let madeAt = Timestamp.nowMilliseconds()
            let submission = try PostSubmission(
                json: try JSONValue.parseStrict(Data(postJSON(lat: 22.4196, lon: 114.2068, extra: #", "expiresAt": "\#(Timestamp.format(milliseconds: madeAt + 10_000))""#).utf8)),
                now: madeAt - 60_000)
            let subscription = board.feed.subscribe(after: nil)
            let created = try await board.submit(submission, clientHash: nil, idempotency: nil).post
            let nearby = "/api/v1/posts/nearby?lat=22.4196&lon=114.2068&radius=100"
            #expect(try await http.allPages(nearby).map(\.id).contains(created.id))
            let expiresAt = created.expiresAt!
            // Streams hear of the end within a second of its instant (the loader checks every 250 ms).
            var removedAt: Int64?
            for await event in subscription.events {
                if case .remove(let id, _, _) = event.event, id == created.id {
                    removedAt = Timestamp.nowMilliseconds()
                    break
                }
            }
            #expect(removedAt.map { $0 >= expiresAt && $0 - expiresAt < 1000 } == true, "removed \(String(describing: removedAt)) for \(expiresAt)")
            #expect(try await !http.allPages(nearby).map(\.id).contains(created.id))
            #expect(try await !http.allPages("/api/v1/posts?bbox=114,22,115,23").map(\.id).contains(created.id))
            #expect(try await http.get("/api/v1/posts/\(created.id)").status == .ok, "still readable by id")
            // The history still holds it: as of a moment before its end, and not before it was made.
            let before = Timestamp.format(milliseconds: expiresAt - 1)
            #expect(try await http.allPages(nearby + "&asOf=\(before)").map(\.id).contains(created.id))
            #expect(try await !http.allPages(nearby + "&asOf=\(Timestamp.format(milliseconds: expiresAt))").map(\.id).contains(created.id))
            #expect(try await !http.allPages(nearby + "&asOf=\(Timestamp.format(milliseconds: created.createdAt - 1))").map(\.id).contains(created.id))
            let tags = Self.object(try await http.get("/api/v1/tags?bbox=114,22,115,23&asOf=\(before)"))
            #expect((tags["tags"] as! [[String: Any]]).first?["count"] as? Int == 2, "the day-long note and the ended one")
            let clusters = Self.object(try await http.get("/api/v1/posts/clusters?zoom=3&asOf=\(before)"))
            #expect(clusters["total"] as? Int == 2)
        }
    }

    @Test func asOfIsValidatedAndPopularPagesHoldTheirInstant() async throws {
        try await TestApp.make().test { http, _ in
            let future = Timestamp.format(milliseconds: Timestamp.nowMilliseconds() + 60_000)
            for uri in [
                "/api/v1/posts/nearby?lat=1&lon=1&asOf=\(future)", "/api/v1/posts?asOf=\(future)", "/api/v1/posts/clusters?zoom=1&asOf=\(future)",
                "/api/v1/tags?asOf=\(future)", "/api/v1/posts?asOf=yesterday", "/api/v1/posts/nearby?lat=1&lon=1&asOf=",
            ] {
                let response = try await http.get(uri)
                #expect(response.status == .badRequest && (Self.field(response)) == "asOf", "\(uri)")
            }
            #expect(Self.field(try await http.get("/api/v1/posts?order=loudest")) == "order")
            #expect(Self.field(try await http.get("/api/v1/posts/nearby?lat=1&lon=1&order=likes")) == "order")

            var ids: [Int] = []
            for _ in 0..<7 { ids.append(try await Self.post(http)["id"] as! Int) }
            // Likes from several devices: post k gets k likes.
            for (k, id) in ids.enumerated() {
                for device in 0..<k {
                    _ = try await http.execute(uri: "/api/v1/posts/\(id)/like", method: .put, headers: Self.device("liker-\(String(format: "%012d", device))"))
                }
            }
            for base in ["/api/v1/posts/nearby?lat=22.4196&lon=114.2068&order=popular", "/api/v1/posts?order=popular"] {
                let first = Self.object(try await http.get(base + "&limit=3"))
                let asOf = try #require(first["asOf"] as? String)
                var got = (first["posts"] as! [[String: Any]]).map { $0["id"] as! Int }
                // A like between pages moves only what later pages see; the instant stays.
                _ = try await http.execute(uri: "/api/v1/posts/\(ids[0])/like", method: .put, headers: Self.device("late-liker-000000000"))
                var cursor = first["nextCursor"] as? String
                while let next = cursor {
                    let page = Self.object(try await http.get(base + "&limit=3&cursor=\(next)"))
                    #expect(page["asOf"] as? String == asOf, "\(base)")
                    got += (page["posts"] as! [[String: Any]]).map { $0["id"] as! Int }
                    cursor = page["nextCursor"] as? String
                }
                #expect(got == ids.reversed(), "\(base): most likes first (equal ages)")
                _ = try await http.execute(uri: "/api/v1/posts/\(ids[0])/like", method: .delete, headers: Self.device("late-liker-000000000"))
            }
            let plain = Self.object(try await http.get("/api/v1/posts?limit=3"))
            #expect(plain["asOf"] == nil)
            let popularCursor = try #require(Self.object(try await http.get("/api/v1/posts?order=popular&limit=3"))["nextCursor"] as? String)
            #expect(Self.field(try await http.get("/api/v1/posts?limit=3&cursor=\(popularCursor)")) == "cursor")
        }
    }
}
