import DatabaseTestSupport
import BoardTestSupport
import Foundation
import HummingbirdTesting
import NoticeBoardCore
import NoticeBoardPostgres
import PostgresNIO
import Testing

/// Nearby and browse over real HTTP on a real database, checked against the brute-force oracle
/// on seeded random boards, paging to the end each time.
@Suite(.timeLimit(.minutes(5))) struct QueryOracleTests {
    static let seed: UInt64 = {
        let seed = SeededGenerator.runSeed()
        print("QueryOracleTests seed: \(seed) (replay with NOTICEBOARD_TEST_SEED=\(seed))")
        return seed
    }()

    /// Stores sample posts with their own ids and times in one statement.
    static func seedDatabase(_ endpoint: DatabaseEndpoint, _ samples: [SamplePost]) async throws {
        try await TestDatabase.withClient(endpoint) { client in
            for chunk in stride(from: 0, to: samples.count, by: 2000).map({ Array(samples[$0..<min($0 + 2000, samples.count)]) }) {
                try await client.query(
                    """
                    INSERT INTO posts (id, lat, lon, heading, message, tag, created_at, floor, client_hash)
                    OVERRIDING SYSTEM VALUE
                    SELECT id, lat, lon, NULLIF(heading, 'NaN'), 'note ' || id, tag,
                           timestamptz 'epoch' + created * interval '1 millisecond', NULLIF(floor, -999)::smallint, 'seed'
                    FROM unnest(\(chunk.map(\.id)), \(chunk.map(\.lat)), \(chunk.map(\.lon)), \(chunk.map { $0.heading ?? .nan }),
                                \(chunk.map(\.tag)), \(chunk.map(\.createdAt)), \(chunk.map { $0.floor ?? -999 }))
                         AS s(id, lat, lon, heading, tag, created, floor)
                    """, logger: TestDatabase.logger)
            }
        }
    }

    static func uri(_ q: Oracle.Nearby, limit: Int) -> String {
        var items = ["lat=\(q.lat)", "lon=\(q.lon)", "radius=\(q.radius)", "limit=\(limit)"]
        if let facing = q.facing { items += ["facing=\(facing)", "fov=\(q.fov)", "accuracy=\(q.accuracy)"] }
        if let heading = q.heading { items += ["heading=\(heading)", "tolerance=\(q.tolerance)"] }
        for tag in q.tags ?? [] { items.append("tag=\(tag.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)") }
        if let from = q.from { items.append("from=\(Timestamp.format(milliseconds: from))") }
        if let to = q.to { items.append("to=\(Timestamp.format(milliseconds: to))") }
        if let floor = q.floor { items.append("floor=\(floor)") }
        if q.newest { items.append("order=newest") }
        return "/api/v1/posts/nearby?" + items.joined(separator: "&")
    }

    @Test(arguments: BoardShape.allCases)
    func nearbyAndBrowseEqualTheOracle(shape: BoardShape) async throws {
        var rng = SeededGenerator(seed: Self.seed &+ UInt64(BoardShape.allCases.firstIndex(of: shape)!))
        let samples = RandomBoard.posts(shape, count: 600, using: &rng)
        let app = try await TestApp.make()
        try await Self.seedDatabase(app.endpoint, samples)
        var queries: [(Oracle.Nearby, Int)] = []
        for _ in 0..<40 {
            var q = Oracle.Nearby(lat: 0, lon: 0, radius: 0)
            let viewer = RandomBoard.viewer(near: samples, using: &rng)
            (q.lat, q.lon) = (viewer.lat, viewer.lon)
            q.radius = [1, 50, 500, 5000, 50_000].randomElement(using: &rng)!
            if Bool.random(using: &rng) { (q.facing, q.fov, q.accuracy) = (Double(Int.random(in: 0..<360, using: &rng)), 90, 5) }
            if Int.random(in: 0..<3, using: &rng) == 0 { (q.heading, q.tolerance) = (Double(Int.random(in: 0..<360, using: &rng)), 30) }
            if Int.random(in: 0..<3, using: &rng) == 0 { q.tags = [RandomBoard.tags.randomElement(using: &rng)!] }
            if Int.random(in: 0..<3, using: &rng) == 0 {
                q.from = RandomBoard.epoch + Int64.random(in: 0..<(20 * 86_400_000), using: &rng)
                q.to = q.from! + 5 * 86_400_000
            }
            if Int.random(in: 0..<4, using: &rng) == 0 { q.floor = Int.random(in: -2...5, using: &rng) }
            q.newest = Bool.random(using: &rng)
            queries.append((q, [3, 25, 500].randomElement(using: &rng)!))
        }
        let boxes = (0..<15).map { _ in Self.randomBox(samples, &rng) }
        let plannedCircles = Self.tagCircles(queries.map(\.0), samples, &rng)
        let seed = Self.seed
        let plannedQueries = queries
        try await app.test { http, _ in
            for (q, limit) in plannedQueries {
                let expected = Oracle.nearby(samples, q)
                let got = try await http.allPages(Self.uri(q, limit: limit))
                #expect(got.map(\.id) == expected.map(\.id), "seed \(seed) shape \(shape) \(Self.uri(q, limit: limit))")
                #expect(got.map { $0.distance! } == expected.map(\.distance), "seed \(seed)")
                #expect(got.map { $0.bearing! } == expected.map(\.bearing), "seed \(seed)")
            }
            for (box, tags) in boxes {
                let expected = Oracle.browse(samples, west: box.0, south: box.1, east: box.2, north: box.3, tags: tags)
                var uri = "/api/v1/posts?bbox=\(box.0),\(box.1),\(box.2),\(box.3)&limit=\(max(1, expected.count / 3))"
                for tag in tags ?? [] { uri += "&tag=\(tag.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" }
                let got = try await http.allPages(uri)
                #expect(got.map(\.id) == expected.map(\.id), "seed \(seed) shape \(shape) \(uri)")
                #expect(got.allSatisfy { $0.distance == nil && $0.message == "note \($0.id)" })
            }
            // Far from everything: an empty page, no cursor.
            let empty = try await http.get("/api/v1/posts/nearby?lat=-33.9&lon=18.4&radius=1&tag=never").decoded(PageBody.self)
            #expect(empty.posts.isEmpty && empty.nextCursor == nil)
            // The tags of a circle (what the list's chips count) are the tags of exactly the posts nearby lists there:
            // the queries' circles, circles whose edge passes exactly through a post, and an empty one.
            let tagOf = Dictionary(uniqueKeysWithValues: samples.map { ($0.id, $0.tag) })
            for circle in plannedCircles {
                let expected = Dictionary(Oracle.nearby(samples, circle).map { (tagOf[$0.id]!, 1) }, uniquingKeysWith: +)
                    .map { TagCountBody(tag: $0.key, count: $0.value) }
                    .sorted { $0.count != $1.count ? $0.count > $1.count : $0.tag < $1.tag }
                var uri = "/api/v1/tags?lat=\(circle.lat)&lon=\(circle.lon)&radius=\(circle.radius)"
                if let from = circle.from, let to = circle.to {
                    uri += "&from=\(Timestamp.format(milliseconds: from))&to=\(Timestamp.format(milliseconds: to))"
                }
                let got = try await http.get(uri).decoded(TagCountsBody.self).tags
                #expect(got == expected, "seed \(seed) shape \(shape) \(uri)")
            }
            let none = try await http.get("/api/v1/tags?lat=-33.9&lon=18.4&radius=1").decoded(TagCountsBody.self)
            #expect(none.tags.isEmpty)
        }
    }

    /// Circles for tag counts: the nearby queries' own (time range kept, the other filters dropped),
    /// and ones whose radius is exactly a post's distance, so that post is on the edge.
    static func tagCircles(_ queries: [Oracle.Nearby], _ samples: [SamplePost], _ rng: inout SeededGenerator) -> [Oracle.Nearby] {
        var circles = queries.map { q in
            var circle = Oracle.Nearby(lat: q.lat, lon: q.lon, radius: q.radius)
            (circle.from, circle.to) = (q.from, q.to)
            return circle
        }
        for _ in 0..<10 {
            let viewer = RandomBoard.viewer(near: samples, using: &rng)
            let edge = samples.randomElement(using: &rng)!
            let radius = Oracle.distance(viewer.lat, viewer.lon, edge.lat, edge.lon)
            guard (1...50_000).contains(radius) else { continue }
            circles.append(Oracle.Nearby(lat: viewer.lat, lon: viewer.lon, radius: radius))
        }
        return circles
    }

    static func randomBox(_ samples: [SamplePost], _ rng: inout SeededGenerator) -> ((Double, Double, Double, Double), Set<String>?) {
        let tags: Set<String>? = Bool.random(using: &rng) ? nil : [RandomBoard.tags.randomElement(using: &rng)!]
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return ((-180, -90, 180, 90), tags)
        case 1: return ((179.97, -1, -179.97, 1), tags)
        default:
            let centre = RandomBoard.viewer(near: samples, using: &rng)
            let size = [0.01, 1.0].randomElement(using: &rng)!
            return ((max(-180, centre.lon - size), max(-90, centre.lat - size), min(180, centre.lon + size), min(90, centre.lat + size)), tags)
        }
    }
}
