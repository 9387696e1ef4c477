import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NoticeBoardCore
import Testing

/// The API's large answers are gzipped for clients that take gzip: the same JSON once inflated,
/// `Vary: Accept-Encoding` on both encodings, identity for everyone else and for small answers,
/// and one device's own history kept out of every cache.
@Suite(.timeLimit(.minutes(3))) struct AnswerCompressionTests {
    @Test func largeAnswersAreGzippedForThoseWhoTakeIt() async throws {
        try await TestApp.make().test { http, board in
            for index in 0..<20 {
                let submission = try PostSubmission(
                    json: try JSONValue.parseStrict(
                        Data(postJSON(lat: 22.4196 + Double(index) * 0.0001, lon: 114.2068, message: "the canteen's noodles, day \(index)").utf8)),
                    now: Timestamp.nowMilliseconds())
                _ = try await board.submit(submission, clientHash: nil, deviceHash: nil, idempotency: nil)
            }
            let nearby = "/api/v1/posts/nearby?lat=22.4196&lon=114.2068&radius=1000&limit=50"
            let plain = try await http.execute(uri: nearby, method: .get, headers: [.acceptEncoding: "identity"])
            #expect(plain.status == .ok && plain.headers[.contentEncoding] == nil && plain.headers[.vary] == "Accept-Encoding")
            #expect(plain.body.readableBytes > Self.smallest, "\(plain.body.readableBytes) bytes")
            let zipped = try await http.execute(uri: nearby, method: .get, headers: [.acceptEncoding: "gzip, deflate, br"])
            #expect(zipped.status == .ok && zipped.headers[.contentEncoding] == "gzip" && zipped.headers[.vary] == "Accept-Encoding")
            #expect(zipped.headers[.contentType] == "application/json; charset=utf-8")
            #expect(zipped.body.readableBytes * 2 < plain.body.readableBytes, "\(zipped.body.readableBytes) of \(plain.body.readableBytes)")
            var body = zipped.body
            #expect(String(buffer: try body.decompress(with: .gzip())) == String(buffer: plain.body))
            for refusing: HTTPFields in [[:], [.acceptEncoding: "gzip;q=0"]] {
                #expect(try await http.execute(uri: nearby, method: .get, headers: refusing).headers[.contentEncoding] == nil, "\(refusing)")
            }
            // An answer under one packet, and errors, are sent as they are.
            let small = try await http.execute(uri: "/api/v1/posts/nearby?lat=0&lon=0&radius=10", method: .get, headers: [.acceptEncoding: "gzip"])
            #expect(small.status == .ok && small.headers[.contentEncoding] == nil)
            let refused = try await http.execute(uri: "/api/v1/posts/nearby?lat=91&lon=0", method: .get, headers: [.acceptEncoding: "gzip"])
            #expect(refused.status == .badRequest && refused.headers[.contentEncoding] == nil)
            // One device's history is its own.
            let mine = try await http.execute(uri: "/api/v1/me/posts", method: .get, headers: ReactionTests.device(ReactionTests.alice))
            #expect(mine.status == .ok && mine.headers[.cacheControl] == "no-store")
        }
    }

    static let smallest = 1400
}
