import BoardTestSupport
import GeoIndex
import Testing

/// `CircleTest` decides as the haversine comparison does, on random points and on points at
/// the edge itself (where only the fallback may decide), near the poles and the antimeridian.
@Suite struct CircleTestTests {
    @Test func agreesWithTheHaversineEverywhere() {
        var random = SeededGenerator(seed: SeededGenerator.runSeed())
        var edges = 0
        for _ in 0..<20_000 {
            let lat = random.uniform(-90, 90), lon = random.uniform(-180, 180)
            let radius: Double = [1, 100, 5000, 50_000, 3_000_000].randomElement(using: &random)!
            let test = CircleTest(lat: lat, lon: lon, radius: radius)
            // Points near the edge, on both sides, and exactly at the distance of a random point.
            var pointLat = lat + random.uniform(-1, 1) * radius / 111_000 * 1.2
            var pointLon = lon + random.uniform(-1, 1) * radius / 111_000 * 1.2
            pointLat = max(-90, min(90, pointLat))
            if pointLon > 180 { pointLon -= 360 }
            if pointLon < -180 { pointLon += 360 }
            let exact = Geodesy.distance(lat1: lat, lon1: lon, lat2: pointLat, lon2: pointLon)
            #expect(test.contains(UnitVector(lat: pointLat, lon: pointLon), lat: pointLat, lon: pointLon) == (exact <= radius))
            // A circle whose radius is exactly that distance holds the point.
            let onEdge = CircleTest(lat: lat, lon: lon, radius: exact)
            #expect(onEdge.contains(UnitVector(lat: pointLat, lon: pointLon), lat: pointLat, lon: pointLon))
            if exact > 0, exact.nextDown < exact {
                let justShort = CircleTest(lat: lat, lon: lon, radius: exact.nextDown)
                #expect(!justShort.contains(UnitVector(lat: pointLat, lon: pointLon), lat: pointLat, lon: pointLon))
                edges += 1
            }
        }
        #expect(edges > 10_000)
    }
}
