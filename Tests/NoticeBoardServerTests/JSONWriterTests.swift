import Foundation
import BoardTestSupport
import GeoIndex
import NoticeBoardCore
import Testing

@testable import NoticeBoardServer

@Suite struct JSONWriterTests {
    static let awkwardTexts = [
        "plain", "Too many things on my desk 😢", "quote \" backslash \\ slash /", "line\nbreak\ttab\r", "\u{01}\u{1F}\u{7F}",
        "美食 ünïcödé", "e\u{301}", "</script><img src=x onerror=alert(1)>", "",
    ]

    static func parsed(_ data: Data) throws -> NSObject {
        try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as! NSObject
    }

    /// The fast writer's JSON means exactly what Foundation's JSONEncoder writes for the same values.
    @Test func writesWhatJSONEncoderWrites() throws {
        let seed = SeededGenerator.runSeed()
        print("JSONWriterTests seed \(seed)")
        var random = SeededGenerator(seed: seed)
        var posts: [PostJSON] = []
        for index in 0..<300 {
            let text = Self.awkwardTexts[index % Self.awkwardTexts.count]
            let post = Post(
                id: Int64.random(in: 1...Int64.max, using: &random), lat: Double.random(in: -90...90, using: &random),
                lon: [180, -180, 1e-7, 0][index % 8 < 4 ? index % 4 : 3] * (index % 8 < 4 ? 1 : Double.random(in: -1...1, using: &random)),
                heading: index % 3 == 0 ? nil : Double.random(in: 0..<360, using: &random), message: text, tag: "tag \(index)",
                createdAt: Int64.random(in: -1_000_000_000_000...4_000_000_000_000, using: &random),
                accuracy: index % 2 == 0 ? nil : 8.5, floor: index % 5 == 0 ? -3 : nil, beacon: index % 7 == 0 ? "uuid:1:2" : nil)
            switch index % 4 {
            case 0: posts.append(PostJSON(post: post))
            case 3:
                // An author's own list: likedByMe and mine, and a note moderators hid marked so.
                var own = PostJSON(post: post)
                own.viewer = ViewerMarks(likedByMe: index % 2 == 0, mine: true)
                own.hiddenForAuthor = index % 8 == 3
                posts.append(own)
            case 1: posts.append(PostJSON(post: post, distance: Double.random(in: 0...50_000, using: &random), bearing: 359.999_999_9))
            default:
                posts.append(PostJSON(moderated: ModeratedPost(post: post, status: .hidden, reportCount: index, clientId: index % 2 == 0 ? nil : "abc")))
            }
        }
        let page = PageJSON<PostJSON>.posts(posts, nextCursor: index(of: posts))
        let foundation = JSONEncoder()
        #expect(try Self.parsed(JSONResponse.encodeData(page)) == Self.parsed(foundation.encode(page)))
        for post in posts {
            #expect(try Self.parsed(JSONResponse.encodeData(post)) == Self.parsed(foundation.encode(post)))
        }
        let clusters = ClustersJSON(
            clusters: [Cluster(lat: 1.5, lon: -179.9, count: 3, postId: nil), Cluster(lat: -90, lon: 180, count: 1, postId: 42)]
                .map(ClustersJSON.Entry.init), total: 4)
        #expect(try Self.parsed(JSONResponse.encodeData(clusters)) == Self.parsed(foundation.encode(clusters)))
    }

    /// Integers are written digit by digit; their text is Swift's own at every edge.
    @Test func integersAtTheirEdges() {
        var random = SeededGenerator(seed: 0x1D)
        let values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, Int64.max, Int64.min, Int64.min + 1] + (0..<200).map { _ in Int64.random(in: .min ... .max, using: &random) }
        for value in values {
            var json = JSONWriter()
            json.number(value)
            #expect(String(decoding: json.bytes, as: UTF8.self) == String(value))
        }
        var json = JSONWriter()
        json.number(UInt64.max)
        json.number(Int32(-7))
        #expect(String(decoding: json.bytes, as: UTF8.self) == "\(UInt64.max)-7")
    }

    /// Doubles written digit by digit read exactly as Swift's `description` writes them, on the
    /// values the board writes (1e-7° coordinates and headings, distances) and on random bits.
    @Test func doublesAsSwiftWritesThem() {
        let seed = SeededGenerator.runSeed()
        print("JSONWriterTests doubles seed \(seed)")
        var random = SeededGenerator(seed: seed)
        var values: [Double] = [
            0, -0.0, 1, -1, 0.1, 0.2, 0.3, 1.0 / 3, 0.001, -0.001, 0.000_999_999_9, 0.000_1, 0.000_099_999_9, 0.000_05, 0.000_01, 0.000_001, 0.000_000_1, 99_999_999.999_999_9,
            100_000_000, 1e15, 9_007_199_254_740_992, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            180, -180, 90, -90, 359.999_999_9, 1e-7, 12.5, 40.768213, 2.349_999_999_999_999_6,
        ]
        for _ in 0..<20_000 {
            let units = Int64.random(in: -1_800_000_000...1_800_000_000, using: &random)
            values.append(FixedDegrees.degrees(units: units))
            values.append(FixedDegrees.quantized(Double.random(in: -1e8...1e8, using: &random)))
            values.append(Double(Int64.random(in: -99_999_999...99_999_999, using: &random)) / [1, 10, 100, 1000][Int(units & 3)])
            values.append(Double.random(in: 0...50_000, using: &random))
            values.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &random)))
        }
        var mismatches: [String] = []
        for value in values where value.isFinite {
            var json = JSONWriter(capacity: 8)
            json.number(value)
            let written = String(decoding: json.bytes, as: UTF8.self)
            if written != value.description { mismatches.append("\(value.description) written as \(written)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        var json = JSONWriter()
        json.number(Double.nan)
        json.number(-Double.infinity)
        #expect(String(decoding: json.bytes, as: UTF8.self) == "nullnull")
    }

    /// A page far past the writer's first capacity comes out whole.
    @Test func growsPastItsCapacity() throws {
        let posts = (0..<400).map { index in
            PostJSON(post: Post(id: Int64(index), lat: 1, lon: 2, heading: nil, message: String(repeating: "é\"", count: index), tag: "t", createdAt: 0,
                accuracy: nil, floor: nil, beacon: nil))
        }
        let data = JSONResponse.encodeData(PageJSON<PostJSON>.posts(posts, nextCursor: nil))
        let page = try #require(try Self.parsed(data) as? [String: Any])
        let messages = try #require(page["posts"] as? [[String: Any]]).compactMap { $0["message"] as? String }
        #expect(messages == posts.map { $0.post.message })
    }

    func index(of posts: [PostJSON]) -> String? { posts.isEmpty ? nil : "cursor\"with/quote" }
}
