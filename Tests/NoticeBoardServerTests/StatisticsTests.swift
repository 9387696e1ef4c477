import BoardTestSupport
import DatabaseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NoticeBoardCore
import NoticeBoardPostgres
import PostgresNIO
import Testing

/// `GET /api/v1/moderation/stats` against brute-force counts over seeded rows: posts of every
/// status, reports, hides and deletes at chosen times, across the antimeridian, in a place.
@Suite(.timeLimit(.minutes(5))) struct StatisticsTests {
    struct Seeded: Sendable {
        var id: Int64 = 0
        var lat: Double
        var lon: Double
        var floor: Int?
        var tag: String
        var createdAt: Int64
        var status: String
        var client: String?
    }

    struct Event: Sendable {
        var postIndex: Int
        var at: Int64
        /// report, hide, auto_hide, delete, author_delete, restore, reply, like
        var kind: String
    }

    struct Body: Decodable {
        struct Counts: Decodable, Equatable {
            var posts: Int
            var replies: Int
            var likes: Int
            var reports: Int
            var hidden: Int
            var deleted: Int
            var byTag: [String: Int]
        }
        struct Bucket: Decodable { var start: String; var posts: Int; var replies: Int; var likes: Int; var reports: Int; var hidden: Int; var deleted: Int; var byTag: [String: Int] }
        struct Totals: Decodable { var posts: Int; var reports: Int; var hidden: Int; var deleted: Int; var byTag: [String: Int]; var devices: Int }
        struct Cell: Decodable { var lat: Double; var lon: Double; var count: Int }
        var bucket: String
        var timeZone: String
        var buckets: [Bucket]
        var totals: Totals
        var topCells: [Cell]
        var cellDegrees: Double
    }

    static let base: Int64 = 1_790_000_000_000  // 2026-09-21T14:13:20Z, a Monday afternoon

    /// Two spots and the antimeridian, ten days of times, every status, a few clients.
    static func seed(_ rng: inout SeededGenerator) -> (posts: [Seeded], events: [Event]) {
        let spots: [(Double, Double)] = [(22.42, 114.2065), (-33.86, 151.2), (0.5, 179.999)]
        var posts: [Seeded] = []
        for _ in 0..<500 {
            let spot = spots.randomElement(using: &rng)!
            let lon = spot.1 + rng.uniform(-0.002, 0.002)
            posts.append(Seeded(
                lat: FixedDegreesForTests.quantized(spot.0 + rng.uniform(-0.002, 0.002)),
                lon: FixedDegreesForTests.quantized(lon > 180 ? lon - 360 : lon),
                floor: Bool.random(using: &rng) ? Int.random(in: 0...2, using: &rng) : nil,
                tag: ["food", "fashion", "美食"].randomElement(using: &rng)!,
                createdAt: base + Int64.random(in: 0..<(10 * 86_400_000), using: &rng),
                status: ["visible", "visible", "visible", "hidden", "deleted"].randomElement(using: &rng)!,
                client: Bool.random(using: &rng) ? "client-\(Int.random(in: 0..<40, using: &rng))" : nil))
        }
        var events: [Event] = []
        for _ in 0..<300 {
            events.append(Event(
                postIndex: Int.random(in: 0..<posts.count, using: &rng), at: base + Int64.random(in: 0..<(10 * 86_400_000), using: &rng),
                kind: ["report", "hide", "auto_hide", "delete", "author_delete", "restore", "reply", "like"].randomElement(using: &rng)!))
        }
        return (posts, events)
    }

    static func store(_ seeded: inout [Seeded], _ events: [Event], endpoint: DatabaseEndpoint) async throws {
        let rows = seeded
        let ids = try await TestDatabase.withClient(endpoint) { client in
            try await Migrator(client: DatabasePool(client), logger: TestDatabase.logger).migrate(try Migration.bundled())
            var ids: [Int64] = []
            for post in rows {
                for try await id in try await client.query(
                    """
                    INSERT INTO posts (lat, lon, floor, message, tag, created_at, status, client_hash)
                    VALUES (\(post.lat), \(post.lon), \(post.floor.map(Int16.init)), 'm', \(post.tag),
                            timestamptz 'epoch' + \(post.createdAt)::int8 * interval '1 millisecond', \(post.status), \(post.client))
                    RETURNING id
                    """, logger: TestDatabase.logger
                ).decode(Int64.self) { ids.append(id) }
            }
            for (n, event) in events.enumerated() {
                let at = event.at, postId = ids[event.postIndex]
                let when = "timestamptz 'epoch' + \(at) * interval '1 millisecond'"
                if event.kind == "reply" {
                    try await client.query(
                        "INSERT INTO replies (post_id, message, created_at) VALUES (\(postId), 'r', \(unescaped: when))", logger: TestDatabase.logger)
                } else if event.kind == "like" {
                    try await client.query(
                        "INSERT INTO likes (post_id, device_hash, created_at) VALUES (\(postId), \("device-\(n)"), \(unescaped: when))",
                        logger: TestDatabase.logger)
                } else if event.kind == "report" {
                    try await client.query(
                        """
                        INSERT INTO reports (post_id, client_hash, reason, created_at)
                        VALUES (\(postId), \("reporter-\(n)"), 'spam', timestamptz 'epoch' + \(at)::int8 * interval '1 millisecond')
                        """, logger: TestDatabase.logger)
                } else {
                    try await client.query(
                        """
                        INSERT INTO audit_log (actor, action, post_id, reason, at)
                        VALUES ('mod', \(event.kind), \(postId), 'why', timestamptz 'epoch' + \(at)::int8 * interval '1 millisecond')
                        """, logger: TestDatabase.logger)
                }
            }
            return ids
        }
        for i in seeded.indices { seeded[i].id = ids[i] }
    }

    @Test func countsEqualBruteForce() async throws {
        var rng = SeededGenerator(seed: SeededGenerator.runSeed())
        var (posts, events) = Self.seed(&rng)
        var app = try await ModerationTests.app()
        app.settings.reportThreshold = 1000
        try await Self.store(&posts, events, endpoint: app.endpoint)
        let (seededPosts, seededEvents, queryRandom) = (posts, events, rng)
        try await app.test { http, _ in
            var rng = queryRandom
            let events = seededEvents
            let token = try await PlaceTests.token(http)
            // A place: a box around the first spot, floors 0...1.
            let place = #"{"name": "Canteen", "polygon": [[114.2055,22.419],[114.2065,22.419],[114.2065,22.421],[114.2055,22.421]], "floors": [0, 1]}"#
            #expect(try await PlaceTests.put(http, token, "canteen", place).status == .created)
            func inPlace(_ p: Seeded) -> Bool {
                p.lat >= 22.419 && p.lat <= 22.421 && p.lon >= 114.2055 && p.lon <= 114.2065 && p.floor.map { (0...1).contains($0) } == true
            }
            let areas: [(String, (Seeded) -> Bool)] = [
                ("", { _ in true }),
                ("&bbox=179.9985,0,-179.999,1", { p in p.lat >= 0 && p.lat <= 1 && (p.lon >= 179.9985 || p.lon <= -179.999) }),
                ("&bbox=114,22,115,23", { p in p.lat >= 22 && p.lat <= 23 && p.lon >= 114 && p.lon <= 115 }),
                ("&place=canteen", inPlace),
            ]
            for _ in 0..<12 {
                let bucket = ["hour", "day", "week"].randomElement(using: &rng)!
                let width: Int64 = ["hour": 3_600_000, "day": 86_400_000, "week": 7 * 86_400_000][bucket]!
                let from = Self.base + Int64.random(in: -86_400_000..<(5 * 86_400_000), using: &rng)
                let to = bucket == "hour" ? from + Int64.random(in: 1...(40 * 3_600_000), using: &rng) : Self.base + 11 * 86_400_000
                let (areaText, inArea) = areas.randomElement(using: &rng)!
                let uri = "/api/v1/moderation/stats?bucket=\(bucket)&from=\(Timestamp.format(milliseconds: from))&to=\(Timestamp.format(milliseconds: to))\(areaText)"
                let response = try await http.execute(uri: uri, method: .get, headers: ModerationTests.bearer(token))
                #expect(response.status == .ok, "\(uri): \(String(buffer: response.body))")
                let body = try response.decoded(Body.self)
                #expect(body.timeZone == "UTC" && body.bucket == bucket)
                // Bucket starts: aligned in UTC (weeks on Monday), covering from..<to.
                let offset: Int64 = bucket == "week" ? 3 * 86_400_000 : 0
                let first = ((from + offset) / width) * width - offset
                let starts = Array(stride(from: first, to: to, by: Int(width)))
                #expect(body.buckets.map(\.start) == starts.map { Timestamp.format(milliseconds: $0) }, "\(uri)")
                let area = seededPosts.filter(inArea)
                for (start, got) in zip(starts, body.buckets) {
                    let low = max(start, from), high = min(start + width, to)
                    let made = area.filter { $0.createdAt >= low && $0.createdAt < high }
                    let happened = { (kinds: Set<String>) in
                        events.filter { kinds.contains($0.kind) && $0.at >= low && $0.at < high && inArea(seededPosts[$0.postIndex]) }.count
                    }
                    #expect(got.posts == made.count, "\(uri) bucket \(got.start)")
                    #expect(got.byTag == Dictionary(grouping: made, by: \.tag).mapValues(\.count), "\(uri) bucket \(got.start)")
                    #expect(got.reports == happened(["report"]) && got.hidden == happened(["hide", "auto_hide"])
                            && got.deleted == happened(["delete", "author_delete"]), "\(uri) bucket \(got.start)")
                    #expect(got.replies == happened(["reply"]) && got.likes == happened(["like"]), "\(uri) bucket \(got.start)")
                }
                let inRange = area.filter { $0.createdAt >= from && $0.createdAt < to }
                #expect(body.totals.posts == inRange.count && body.totals.devices == Set(inRange.compactMap(\.client)).count, "\(uri)")
                #expect(body.totals.byTag == Dictionary(grouping: inRange, by: \.tag).mapValues(\.count), "\(uri)")
                // Cells: the busiest counts, from the same grid.
                var cells: [String: Int] = [:]
                for post in inRange {
                    let lon = post.lon == 180 ? -180 : post.lon
                    cells["\(Int(((post.lat + 90) / body.cellDegrees).rounded(.down))):\(Int((lon + 180) / body.cellDegrees))", default: 0] += 1
                }
                #expect(body.topCells.map(\.count) == Array(cells.values.sorted(by: >).prefix(200)), "\(uri)")
                #expect(body.topCells.reduce(0) { $0 + $1.count } <= inRange.count)
            }
            for (uri, field) in [("bucket=month", "bucket"), ("bucket=hour&from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z", "bucket"),
                                 ("from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "from"), ("place=nowhere", "place"), ("bbox=1,2,3", "bbox")] {
                let response = try await http.execute(uri: "/api/v1/moderation/stats?\(uri)", method: .get, headers: ModerationTests.bearer(token))
                #expect(try response.status == .badRequest && response.decoded(ErrorBody.self).error.field == field, "\(uri)")
            }
            #expect(try await http.get("/api/v1/moderation/stats").status == .unauthorized)
        }
    }
}

enum FixedDegreesForTests {
    static func quantized(_ degrees: Double) -> Double { (degrees * 1e7).rounded() / 1e7 }
}
