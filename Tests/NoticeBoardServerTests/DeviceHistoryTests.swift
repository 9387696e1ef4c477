import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NoticeBoardCore
import Testing

/// "My notes" (contract 1.2): a device's notes and replies newest first, hidden ones marked,
/// expired ones kept, deleted ones and other devices' left out; and history is read-only.
@Suite(.timeLimit(.minutes(3))) struct DeviceHistoryTests {
    static let alice = ReactionTests.alice
    static let bob = ReactionTests.bob

    /// A note of Alice's whose lifetime ends `seconds` from now (made through the board, whose
    /// validation is given a clock a minute behind so the lifetime may be short).
    static func endingNote(_ board: Board, seconds: Double, device: String) async throws -> Post {
        let madeAt = Timestamp.nowMilliseconds()
        let ends = Timestamp.format(milliseconds: madeAt + Int64(seconds * 1000))
        let submission = try PostSubmission(
            json: try JSONValue.parseStrict(Data(postJSON(lat: 22.4196, lon: 114.2068, extra: #", "expiresAt": "\#(ends)""#).utf8)),
            now: madeAt - 60_000)
        return try await board.submit(submission, clientHash: nil, deviceHash: device, idempotency: nil).post
    }

    @Test func aDeviceSeesItsOwnNotesAndRepliesNewestFirst() async throws {
        try await ModerationTests.app().test { http, board in
            let token = try await ModerationTests.login(http).decoded(ModerationTests.TokenBody.self).token
            var mine: [Int] = []
            for _ in 0..<4 { mine.append(try await ReactionTests.post(http, key: Self.alice)["id"] as! Int) }
            let theirs = try await ReactionTests.post(http, key: Self.bob)["id"] as! Int
            _ = try await ReactionTests.post(http)
            // One hidden by moderators (still listed, marked), one deleted by its author (gone).
            let hide = try await http.execute(
                uri: "/api/v1/moderation/posts/\(mine[1])/hide", method: .post, headers: ModerationTests.bearer(token),
                body: ByteBuffer(string: #"{"reason": "spam"}"#))
            #expect(hide.status == .ok, "\(String(buffer: hide.body))")
            let deleted = try await http.execute(uri: "/api/v1/posts/\(mine[2])", method: .delete, headers: ReactionTests.device(Self.alice))
            #expect(deleted.status == .noContent)
            let internalDevice = try #require(board.post(id: Int64(mine[0]))?.deviceHash)
            let ended = try await Self.endingNote(board, seconds: 1.5, device: internalDevice)
            try await Task.sleep(for: .milliseconds(max(0, ended.expiresAt! - Timestamp.nowMilliseconds()) + 200))

            let expected = [Int(ended.id), mine[3], mine[1], mine[0]]
            let all = try await Self.pages(http, "/api/v1/me/posts?limit=3", key: Self.alice, items: "posts")
            #expect(all.map { $0["id"] as? Int } == expected.map { $0 }, "newest first, deleted and others' left out")
            for item in all {
                #expect(item["mine"] as? Bool == true && item["likeCount"] as? Int == 0 && item["replyCount"] as? Int == 0)
                #expect((item["status"] as? String) == (item["id"] as? Int == mine[1] ? "hidden" : nil))
            }
            #expect(all.first?["expiresAt"] as? String == Timestamp.format(milliseconds: ended.expiresAt!), "the expired note with its end")
            let bobs = try await Self.pages(http, "/api/v1/me/posts", key: Self.bob, items: "posts")
            #expect(bobs.map { $0["id"] as? Int } == [theirs])
            for path in ["/api/v1/me/posts", "/api/v1/me/replies"] {
                let refused = try await http.get(path)
                #expect(refused.status == .badRequest && ReactionTests.field(refused) == "X-Device-Key", "\(path)")
            }

            // Replies: Alice's two on Bob's note (one hidden), Bob's own answer not hers.
            var replies: [Int] = []
            for text in ["first", "second", "third"] {
                let made = try await http.postJSON(
                    #"{"message": "\#(text)"}"#, headers: ReactionTests.device(Self.alice), uri: "/api/v1/posts/\(theirs)/replies")
                #expect(made.status == .created)
                replies.append(ReactionTests.object(made)["id"] as! Int)
            }
            _ = try await http.postJSON(#"{"message": "answer"}"#, headers: ReactionTests.device(Self.bob), uri: "/api/v1/posts/\(theirs)/replies")
            let hidden = try await http.execute(
                uri: "/api/v1/moderation/replies/\(replies[1])/hide", method: .post, headers: ModerationTests.bearer(token),
                body: ByteBuffer(string: #"{"reason": "rude"}"#))
            #expect(hidden.status == .ok, "\(String(buffer: hidden.body))")
            let deletedReply = try await http.execute(
                uri: "/api/v1/moderation/replies/\(replies[0])", method: .delete, headers: ModerationTests.bearer(token),
                body: ByteBuffer(string: #"{"reason": "abuse"}"#))
            #expect(deletedReply.status == .ok || deletedReply.status == .noContent, "\(String(buffer: deletedReply.body))")
            let ownReplies = try await Self.pages(http, "/api/v1/me/replies?limit=1", key: Self.alice, items: "replies")
            #expect(ownReplies.map { $0["id"] as? Int } == [replies[2], replies[1]])
            #expect(ownReplies.allSatisfy { $0["postId"] as? Int == theirs && $0["mine"] as? Bool == true })
            #expect(ownReplies.map { $0["status"] as? String } == [nil, "hidden"])
        }
    }

    @Test func anExpiredNoteTakesNoLikesRepliesOrReportsButStaysReadable() async throws {
        try await TestApp.make().test { http, board in
            let open = try await ReactionTests.post(http, key: Self.alice)["id"] as! Int
            let device = try #require(board.post(id: Int64(open))?.deviceHash)
            let ended = try await Self.endingNote(board, seconds: 5, device: device)
            // Before its end it takes a like; after, nothing.
            let early = try await http.execute(uri: "/api/v1/posts/\(ended.id)/like", method: .put, headers: ReactionTests.device(Self.bob))
            #expect(early.status == .ok)
            try await Task.sleep(for: .milliseconds(max(0, ended.expiresAt! - Timestamp.nowMilliseconds()) + 200))
            let bob = ReactionTests.device(Self.bob)
            let attempts: [(String, HTTPRequest.Method, String?)] = [
                ("/api/v1/posts/\(ended.id)/like", .put, nil), ("/api/v1/posts/\(ended.id)/like", .delete, nil),
                ("/api/v1/posts/\(ended.id)/replies", .post, #"{"message": "late"}"#),
                ("/api/v1/posts/\(ended.id)/reports", .post, #"{"reason": "late"}"#),
            ]
            for (uri, method, body) in attempts {
                let response = try await http.execute(uri: uri, method: method, headers: bob, body: body.map { ByteBuffer(string: $0) })
                #expect(response.status == .notFound, "\(method) \(uri): \(response.status)")
            }
            let read = try await http.execute(uri: "/api/v1/posts/\(ended.id)", method: .get, headers: bob)
            #expect(read.status == .ok && ReactionTests.object(read)["likeCount"] as? Int == 1, "read by id, its like kept")
            // The open note beside it still takes all four.
            for (uri, method, body) in attempts.map({ ($0.0.replacingOccurrences(of: "/\(ended.id)/", with: "/\(open)/"), $0.1, $0.2) }) {
                let response = try await http.execute(uri: uri, method: method, headers: bob, body: body.map { ByteBuffer(string: $0) })
                #expect([.ok, .created, .accepted].contains(response.status), "\(method) \(uri): \(response.status)")
            }
        }
    }

    /// Every item of every page, following `nextCursor`.
    static func pages(_ http: any TestClientProtocol, _ uri: String, key: String, items: String) async throws -> [[String: Any]] {
        var all: [[String: Any]] = []
        var cursor: String?
        repeat {
            let page = try await http.execute(
                uri: uri + (cursor.map { (uri.contains("?") ? "&" : "?") + "cursor=\($0)" } ?? ""), method: .get, headers: ReactionTests.device(key))
            #expect(page.status == .ok, "\(String(buffer: page.body))")
            let body = ReactionTests.object(page)
            all += body[items] as? [[String: Any]] ?? []
            cursor = body["nextCursor"] as? String
            if all.count > 1000 { Issue.record("paging does not end"); break }
        } while cursor != nil
        return all
    }
}
