import Foundation
import BoardTestSupport
import NoticeBoardCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct StreamCellsTests {
    /// Every point an area matches lies in one of the area's cells (or the area listens everywhere).
    @Test func cellsCoverEveryMatchingPoint() throws {
        let seed = SeededGenerator.runSeed()
        print("StreamCellsTests seed \(seed)")
        var random = SeededGenerator(seed: seed)
        var checked = 0
        for _ in 0..<400 {
            let lat = random.uniform(-90, 90), lon = random.uniform(-180, 180)
            let query: StreamQuery
            if random.uniform(0, 1) < 0.5 {
                query = try StreamQuery(QueryParameters(urlQuery: "lat=\(lat)&lon=\(lon)&radius=\(random.uniform(1, 50_000))"))
            } else {
                let west = random.uniform(-180, 180), east = random.uniform(-180, 180)
                let south = random.uniform(-90, 90), north = min(90, south + random.uniform(0, 30))
                query = try StreamQuery(QueryParameters(urlQuery: "bbox=\(west),\(south),\(east),\(north)"))
            }
            guard let cells = query.cells else { continue }
            // Points near the area: around its centre or inside its box, plus the edges ±180 and ±90.
            for _ in 0..<300 {
                let pointLat: Double, pointLon: Double
                switch query.area {
                case .circle(let centreLat, let centreLon, let radius):
                    pointLat = max(-90, min(90, centreLat + random.uniform(-1, 1) * radius / 100_000))
                    var candidate = centreLon + random.uniform(-1, 1) * radius / 100_000 / max(0.01, cos(centreLat * .pi / 180))
                    if candidate > 180 { candidate -= 360 }
                    if candidate < -180 { candidate += 360 }
                    pointLon = random.uniform(0, 1) < 0.05 ? (candidate < 0 ? -180 : 180) : candidate
                case .box(let box):
                    pointLat = random.uniform(box.south, box.north)
                    pointLon = random.uniform(0, 1) < 0.05 ? box.east : random.uniform(-180, 180)
                case nil:
                    Issue.record("a query without a place always has an area")
                    return
                }
                guard query.matches(lat: pointLat, lon: pointLon, tag: nil) != nil else { continue }
                checked += 1
                #expect(cells.contains(StreamCells.cell(lat: pointLat, lon: pointLon)),
                    "seed \(seed): \(query.area) misses \(pointLat),\(pointLon)")
            }
        }
        #expect(checked > 1000)
    }

    @Test func theFeedOffersAPostOnlyToStreamsWhoseCellsHoldIt() async throws {
        let feed = LiveFeed()
        let paris = try StreamQuery(QueryParameters(urlQuery: "lat=48.8566&lon=2.3522&radius=1000"))
        let nearParis = feed.subscribe(after: nil, cells: paris.cells)
        let everywhere = feed.subscribe(after: nil, cells: nil)
        let post = { (lat: Double, lon: Double, id: Int64) in
            Post(id: id, lat: lat, lon: lon, heading: nil, message: "m", tag: "t", createdAt: 0, accuracy: nil, floor: nil, beacon: nil)
        }
        feed.publish(.post(post(-33.86, 151.2, 1)))  // Sydney
        feed.publish(.post(post(48.857, 2.352, 2)))  // Paris
        feed.unsubscribe(nearParis.token)
        feed.unsubscribe(everywhere.token)
        var parisIDs: [Int64] = []
        for await event in nearParis.events { if case .post(let p) = event.event { parisIDs.append(p.id) } }
        var allIDs: [Int64] = []
        for await event in everywhere.events { if case .post(let p) = event.event { allIDs.append(p.id) } }
        #expect(parisIDs == [2])
        #expect(allIDs == [1, 2])
        #expect(feed.subscriberCount == 0)
    }
}
