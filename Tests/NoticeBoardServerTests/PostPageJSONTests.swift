import BoardTestSupport
import CoreTestSupport
import Foundation
import GeoIndex
import Hummingbird
import Synchronization
import Testing

@testable import NoticeBoardCore
@testable import NoticeBoardServer

/// Pages written from the board's bytes (index columns, post table row, text arena) say exactly
/// what Foundation's JSONEncoder says of the same posts as they were stored: every member of
/// 10 000 random posts, under every `fields=` selection, with and without a device, on nearby,
/// browse, the stream's events and the moderators' and authors' views.
@Suite(.timeLimit(.minutes(5))) struct PostPageJSONTests {
    /// Likes of record fixed in advance; counts which posts it was asked about.
    final class FixedLikes: LikeStore {
        let liked: Set<String>
        private let asked = Mutex<[Int64]>([])

        init(liked: Set<String>) { self.liked = liked }

        func setLike(postId: Int64, deviceHash: String, liked: Bool) async throws -> (state: PostState, changed: Bool)? { nil }

        func likedPosts(deviceHash: String, among ids: [Int64]) async throws -> Set<Int64> {
            asked.withLock { $0 += ids }
            return Set(ids.filter { liked.contains(Self.key(deviceHash, $0)) })
        }

        var everAsked: [Int64] { asked.withLock { $0 } }

        static func key(_ device: String, _ id: Int64) -> String { "\(device)|\(id)" }
    }

    static let devices = (0..<20).map { "device-\($0)-" + String(repeating: "h", count: 40) }
    static let pieces = [
        "plain", " words ", "😢", "👩‍👩‍👧‍👦", "美食", "ünïcödé", "e\u{301}", "\"", "\\", "/", "</script>", "\n", "\t", "\r",
        "\u{01}", "\u{1F}", "\u{7F}", "\u{0}", "\u{2028}", "\u{FEFF}", "\u{10FFFF}", "{\"json\":[1]}", "x",
    ]
    static let tags = ["food", "lifestyle", "美食", "a b-c_d", "ünï", "tag\"quote", "back\\slash", "t"]
    /// Where most posts are, so nearby pages are full.
    static let towns: [(lat: Double, lon: Double)] = [(22.4, 114.2), (-33.9, 151.2), (89.99, 0), (0.01, 179.99), (51.5, -0.1)]

    static func randomPost(id: Int64, now: Int64, using random: inout SeededGenerator) -> Post {
        let (lat, lon): (Double, Double)
        if Int.random(in: 0..<10, using: &random) < 8 {
            let town = towns.randomElement(using: &random)!
            lat = min(90, max(-90, town.lat + Double.random(in: -0.2...0.2, using: &random)))
            var east = town.lon + Double.random(in: -0.2...0.2, using: &random)
            if east > 180 { east -= 360 }
            lon = east
        } else {
            // Now and then on a pole, the equator or the antimeridian.
            lat = Int.random(in: 0..<20, using: &random) == 0 ? [90, -90, 0].randomElement(using: &random)! : Double.random(in: -90...90, using: &random)
            lon = Int.random(in: 0..<20, using: &random) == 0 ? [180, -180, 1e-7].randomElement(using: &random)! : Double.random(in: -180...180, using: &random)
        }
        let message = (0..<Int.random(in: 1...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        let long = Int.random(in: 0..<200, using: &random) == 0
        let created: Int64 = switch Int.random(in: 0..<50, using: &random) {
        case 0: Int64.random(in: -70_000_000_000_000 ... -62_000_000_000_000, using: &random)  // before year 0 and around it
        case 1: 0
        default: Int64.random(in: 0...now, using: &random)
        }
        let likes = Int.random(in: 0..<3, using: &random) == 0 ? Int.random(in: 1...Int(Int32.max), using: &random) : 0
        return Post(
            id: id, lat: FixedDegrees.quantized(lat), lon: FixedDegrees.quantized(lon),
            heading: Bool.random(using: &random) ? nil : FixedDegrees.quantizedHeading(Double.random(in: 0..<360, using: &random)),
            message: long ? String(repeating: "é\"😢", count: 666) : message, tag: tags.randomElement(using: &random)!, createdAt: created,
            accuracy: Bool.random(using: &random) ? nil : [0, 8, 8.5, 10_000, Double.random(in: 0...10_000, using: &random)].randomElement(using: &random)!,
            floor: Bool.random(using: &random) ? nil : Int.random(in: -20...200, using: &random),
            beacon: Int.random(in: 0..<10, using: &random) == 0 ? "f7826da6-4fa2-4e98-8024-bc5b71e0893e:\(id % 65536):7" : nil,
            // Every note stored here is still on the live board, so every one is found.
            expiresAt: Bool.random(using: &random) ? nil : now + Int64.random(in: 86_400_000...31_622_400_000, using: &random),
            likeCount: likes, replyCount: Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0...Int(Int32.max), using: &random) : 0,
            deviceHash: Int.random(in: 0..<4, using: &random) == 0 ? nil : devices.randomElement(using: &random)!)
    }

    static func randomFields(using random: inout SeededGenerator, available: PostFields) -> PostFields {
        guard Bool.random(using: &random) else { return .all }
        var fields = PostFields(rawValue: UInt32.random(in: 0...PostFields.all.rawValue, using: &random)).intersection(available)
        if fields.isEmpty { fields = .id }
        return fields
    }

    static func parsed(_ bytes: some Sequence<UInt8>) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) as? [String: Any])
    }

    /// Foundation's encoder as the server once used it. Without `.withoutEscapingSlashes` it
    /// writes `\/`, and Foundation's parser drops a U+FEFF that follows that escape: a quirk of
    /// the reference, not a difference in the text.
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }

    /// What JSONEncoder writes for the post, less the members `fields` leaves out.
    static func expected(_ json: PostJSON, fields: PostFields) throws -> [String: Any] {
        var object = try parsed(encoder.encode(json))
        for (name, field) in PostFields.names where !fields.contains(field) { object[name] = nil }
        return object
    }

    /// Each member that differs, named, so a failure says which field of which post.
    static func differences(_ written: [String: Any], _ expected: [String: Any]) -> [String] {
        var wrong: [String] = []
        for key in Set<String>().union(written.keys).union(expected.keys).sorted() {
            switch (written[key], expected[key]) {
            case (let a?, let b?): if !same(a, b) { wrong.append("\(key): \(a) ≠ \(b)") }
            case (nil, let b?): wrong.append("\(key) missing (expected \(b))")
            case (let a?, nil): wrong.append("\(key) unexpected (\(a))")
            case (nil, nil): break
            }
        }
        return wrong
    }

    /// Two parsed JSON values (numbers, strings, booleans, null) mean the same.
    static func same(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case (is NSNull, is NSNull): true
        case (let x as String, let y as String): x == y
        case (let x as NSNumber, let y as NSNumber): x == y
        default: false
        }
    }

    struct Board10k {
        let board: Board
        let likes: FixedLikes
        let posts: [Int64: Post]
    }

    static func board(seed: UInt64) -> Board10k {
        var random = SeededGenerator(seed: seed)
        let now = Timestamp.nowMilliseconds()
        var posts: [Int64: Post] = [:]
        while posts.count < 10_000 {
            let id = Int.random(in: 0..<10, using: &random) == 0 ? Int64.random(in: 1...Int64.max, using: &random) : Int64.random(in: 1...1_000_000, using: &random)
            posts[id] = randomPost(id: id, now: now, using: &random)
        }
        var liked: Set<String> = []
        for post in posts.values where post.likeCount > 0 {
            for device in devices where Int.random(in: 0..<4, using: &random) == 0 { liked.insert(FixedLikes.key(device, post.id)) }
        }
        let likes = FixedLikes(liked: liked)
        let board = Board(store: UnreachablePostStore(), likes: likes)
        for post in posts.values.sorted(by: { $0.id < $1.id }) { board.reconcile(post, status: .visible, version: 1) }
        return Board10k(board: board, likes: likes, posts: posts)
    }

    /// Checks one written page against the posts as stored, the `ids` the materializing path
    /// found in their order (`fields=` may leave `id` out); returns the page's cursor and `asOf`.
    static func check(
        page bytes: ByteBuffer, _ stored: Board10k, ids: [Int64], fields: PostFields, device: String?, places: [Int64: NearbyPost] = [:],
        failures: inout [String]
    ) throws -> (nextCursor: String?, asOf: String?) {
        let page = try parsed(bytes.readableBytesView)
        let objects = try #require(page["posts"] as? [[String: Any]])
        #expect(objects.count == ids.count)
        for (object, id) in zip(objects, ids) {
            let post = try #require(stored.posts[id])
            var json = PostJSON(post: post, distance: places[id]?.distance, bearing: places[id]?.bearing, fields: fields)
            json.viewer = device.map { ViewerMarks(likedByMe: stored.likes.liked.contains(FixedLikes.key($0, id)), mine: post.deviceHash == $0) }
            let wrong = differences(object, try expected(json, fields: fields))
            if !wrong.isEmpty { failures.append("post \(id), fields \(fields.rawValue), device \(device ?? "none"): \(wrong)") }
        }
        let keys = Set<String>().union(page.keys)
        #expect(keys == ["posts", "nextCursor"] || keys == ["posts", "nextCursor", "asOf"], "\(keys)")
        return (page["nextCursor"] as? String, page["asOf"] as? String)
    }

    @Test func browsePagesSayWhatJSONEncoderSaysOfEveryPost() async throws {
        let seed = SeededGenerator.runSeed()
        print("PostPageJSONTests browse seed \(seed)")
        let stored = Self.board(seed: seed)
        var random = SeededGenerator(seed: seed &+ 1)
        var failures: [String] = []
        for order in ["newest", "popular"] {
            // Every post once with every member, then again under random `fields=` selections.
            for selecting in [false, true] {
                var seen: [Int64] = []
                var cursor: String?
                repeat {
                    var pairs = [("limit", String(Int.random(in: 200...500, using: &random))), ("order", order)]
                    if let cursor { pairs.append(("cursor", cursor)) }
                    let query = try BrowseQuery(QueryParameters(pairs))
                    let fields = selecting ? Self.randomFields(using: &random, available: PostFields.all.subtracting([.distance, .bearing])) : .all
                    let device = Bool.random(using: &random) ? Self.devices.randomElement(using: &random)! : nil
                    let bytes = try await PostRoutes.browsePage(stored.board, query, fields: fields, deviceHash: device)
                    let old = try stored.board.browse(query)
                    let page = try Self.check(page: bytes, stored, ids: old.items.map(\.id), fields: fields, device: device, failures: &failures)
                    #expect(page.nextCursor == old.nextCursor)
                    #expect(page.asOf == old.asOf.map(Timestamp.format(milliseconds:)))
                    seen += old.items.map(\.id)
                    cursor = old.nextCursor
                } while cursor != nil
                #expect(Set(seen) == Set<Int64>().union(stored.posts.keys) && seen.count == stored.posts.count, "every post, once (\(order))")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) posts differ: \(failures.prefix(5))")
        // Only posts someone likes are asked about, and only for a device.
        let asked = stored.likes.everAsked
        #expect(!asked.isEmpty && asked.allSatisfy { stored.posts[$0]!.likeCount > 0 })
    }

    @Test func nearbyPagesSayWhatJSONEncoderSays() async throws {
        let seed = SeededGenerator.runSeed()
        print("PostPageJSONTests nearby seed \(seed)")
        let stored = Self.board(seed: seed)
        var random = SeededGenerator(seed: seed &+ 2)
        var failures: [String] = []
        var written = 0
        for round in 0..<60 {
            let town = Self.towns[round % Self.towns.count]
            var pairs = [
                ("lat", String(town.lat)), ("lon", String(town.lon)), ("radius", String(Int.random(in: 10_000...50_000, using: &random))),
                ("limit", String(Int.random(in: 1...500, using: &random))),
                ("order", ["distance", "newest", "popular"][round % 3]),
            ]
            if round % 5 == 4 { pairs += [("facing", "90"), ("fov", "120")] }
            let query = try NearbyQuery(QueryParameters(pairs))
            let fields = Self.randomFields(using: &random, available: .all)
            let device = Bool.random(using: &random) ? Self.devices.randomElement(using: &random)! : nil
            let old = try await stored.board.nearby(query)
            let bytes = try await PostRoutes.nearbyPage(stored.board, query, fields: fields, deviceHash: device)
            let places = Dictionary(uniqueKeysWithValues: old.items.map { ($0.post.id, $0) })
            let page = try Self.check(
                page: bytes, stored, ids: old.items.map(\.post.id), fields: fields, device: device, places: places, failures: &failures)
            #expect(page.nextCursor == old.nextCursor)
            #expect(page.asOf == old.asOf.map(Timestamp.format(milliseconds:)))
            written += old.items.count
        }
        #expect(written > 5_000, "pages were mostly full: \(written) posts written")
        #expect(failures.isEmpty, "\(failures.count) posts differ: \(failures.prefix(5))")
    }

    /// A post built from a store's row (a moderator's list, an author's own list, `GET` by id, a
    /// stream's event) goes through the same member writer.
    @Test func otherViewsOfEveryPostSayWhatJSONEncoderSays() throws {
        let seed = SeededGenerator.runSeed()
        print("PostPageJSONTests views seed \(seed)")
        var random = SeededGenerator(seed: seed)
        let now = Timestamp.nowMilliseconds()
        let stream = try StreamQuery(QueryParameters([("lat", "22.4"), ("lon", "114.2"), ("radius", "50000")]))
        var failures: [String] = []
        var streamed = 0
        for index in 0..<10_000 {
            var post = Self.randomPost(id: Int64.random(in: 1...Int64.max, using: &random), now: now, using: &random)
            if index % 3 == 0 { post.expiresAt = now - Int64.random(in: 0...1_000_000_000, using: &random) }  // the history's notes
            var views: [PostJSON] = [
                PostJSON(moderated: ModeratedPost(
                    post: post, status: PostStatus.allCases.randomElement(using: &random)!, reportCount: index, clientId: index % 2 == 0 ? nil : "client\"\(index)")),
                PostJSON(post: post),
            ]
            var own = PostJSON(post: post)
            own.viewer = ViewerMarks(likedByMe: Bool.random(using: &random), mine: Bool.random(using: &random))
            own.hiddenForAuthor = Bool.random(using: &random)
            views.append(own)
            for view in views {
                let wrong = Self.differences(try Self.parsed(JSONResponse.encodeData(view)), try Self.parsed(Self.encoder.encode(view)))
                if !wrong.isEmpty { failures.append("post \(post.id): \(wrong)") }
            }
            // A stream centred on the first town hears the posts around it, with distance and bearing.
            let event = SequencedEvent(sequence: Int64(index), event: .post(post))
            guard let chunk = StreamRoutes.encode(event, for: stream) else { continue }
            let text = String(buffer: chunk)
            let prefix = "id: \(index)\nevent: post\ndata: "
            #expect(text.hasPrefix(prefix) && text.hasSuffix("\n\n"), "\(text.prefix(60))")
            let data = try Self.parsed(Array(text.utf8.dropFirst(prefix.utf8.count).dropLast(2)))
            let place = try #require(stream.matches(lat: post.lat, lon: post.lon, tag: post.tag, floor: .some(post.floor)) ?? nil)
            let wrong = Self.differences(data, try Self.parsed(Self.encoder.encode(PostJSON(post: post, distance: place.distance, bearing: place.bearing))))
            if !wrong.isEmpty { failures.append("streamed post \(post.id): \(wrong)") }
            streamed += 1
        }
        #expect(streamed > 1_000, "\(streamed) streamed")
        #expect(failures.isEmpty, "\(failures.count) differ: \(failures.prefix(5))")
    }
}
