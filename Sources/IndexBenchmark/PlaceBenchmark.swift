import Foundation
import GeoIndex

/// `BENCH_PROFILE=places`: nearby, browse and counts narrowed to a place, beside the same
/// query narrowed by the place's bounding box alone, on the same tree and centres. Places are
/// concave outlines around each query point: a campus (200 vertices, about 400 m across) and a
/// city (1000 vertices, about 16 km across).
func runPlaceBenchmark(posts: [IndexedPost], queries: [Query], runs: Int) {
    let clock = ContinuousClock()
    func microseconds(_ d: Duration) -> Double { (Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18) * 1e6 }
    let tree = RTreeIndex(bulk: posts)
    var generator = SystemRandomNumberGenerator()
    print("| place | query | by box, µs (median) | by place, µs (median) | place / box | results by box | results by place |")
    print("|---|---|---|---|---|---|---|")
    for (name, radiusMetres, vertices) in [("campus", 200.0, 200), ("city", 8000.0, 1000)] {
        let shapes: [(Query, PlaceShape)] = queries.compactMap { q in
            let degrees = radiusMetres / 111_195
            let stretch = 1 / max(0.05, cos(q.lat * .pi / 180))
            // A concave outline with bays and headlands, its vertices a little uneven, as drawn.
            let phase = Double.random(in: 0..<(2 * .pi), using: &generator)
            let ring = (0..<vertices).map { i -> (lon: Double, lat: Double) in
                let angle = Double(i) / Double(vertices) * 2 * .pi
                let wobble = 1 + 0.25 * sin(3 * angle + phase) + 0.1 * sin(7 * angle) + Double.random(in: -0.01...0.01, using: &generator)
                let r = degrees * wobble
                return (q.lon + r * cos(angle) * stretch, q.lat + r * sin(angle))
            }
            guard ring.allSatisfy({ abs($0.lon) <= 180 && abs($0.lat) <= 90 }), let shape = try? PlaceShape.validated(ring) else { return nil }
            return (q, shape)
        }
        let cases: [(String, (Query, PlaceShape, Bool) -> Int)] = [
            ("browse, newest 50", { _, shape, byPlace in
                tree.browse(AreaSearch(box: shape.box, filter: byPlace ? PostFilter(place: shape) : .all, limit: 50)).count
            }),
            ("nearby, nearest 50", { q, shape, byPlace in
                tree.nearby(NearbySearch(lat: q.lat, lon: q.lon, radius: radiusMetres * 1.2, filter: byPlace ? PostFilter(place: shape) : .all, limit: 50)).count
            }),
            ("count (postCount)", { _, shape, byPlace in
                tree.count(in: shape.box, filter: byPlace ? PostFilter(place: shape) : .all)
            }),
        ]
        for (label, run) in cases {
            var boxTimes: [Double] = [], placeTimes: [Double] = []
            var boxResults = 0, placeResults = 0
            for _ in 0..<runs {
                for (q, shape) in shapes {
                    let boxStart = clock.now
                    boxResults += run(q, shape, false)
                    boxTimes.append(microseconds(clock.now - boxStart))
                    let placeStart = clock.now
                    placeResults += run(q, shape, true)
                    placeTimes.append(microseconds(clock.now - placeStart))
                }
            }
            let box = boxTimes.sorted()[boxTimes.count / 2], place = placeTimes.sorted()[placeTimes.count / 2]
            let perRun = max(1, runs * shapes.count)
            print(String(format: "| %@ (%d vertices) | %@ | %.1f | %.1f | %.2f× | %.1f | %.1f |", name, vertices, label, box, place, place / box,
                         Double(boxResults) / Double(perRun), Double(placeResults) / Double(perRun)))
        }
    }
}
