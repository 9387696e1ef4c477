import BoardTestSupport
import GeoIndex
import Testing

@Suite struct GeodesyTests {
    @Test func oneDegreeOfLongitudeAtTheEquator() {
        let expected = 6_371_008.8 * .pi / 180
        #expect(abs(Geodesy.distance(lat1: 0, lon1: 0, lat2: 0, lon2: 1) - expected) < 1e-6)
    }

    @Test func distanceAcrossTheAntimeridianIsShort() {
        let d = Geodesy.distance(lat1: 0, lon1: 179.9999, lat2: 0, lon2: -179.9999)
        #expect(abs(d - 0.0002 * 6_371_008.8 * .pi / 180) < 1e-3)
        #expect(Geodesy.distance(lat1: 10, lon1: 180, lat2: 10, lon2: -180) < 1e-6)
    }

    @Test func poleToPoleIsHalfTheCircumference() {
        #expect(abs(Geodesy.distance(lat1: 90, lon1: 0, lat2: -90, lon2: 77) - 6_371_008.8 * .pi) < 1e-6)
    }

    @Test func bearingsOfTheCompassPoints() {
        #expect(abs(Geodesy.bearing(lat1: 0, lon1: 0, lat2: 1, lon2: 0) - 0) < 1e-9)
        #expect(abs(Geodesy.bearing(lat1: 0, lon1: 0, lat2: 0, lon2: 1) - 90) < 1e-9)
        #expect(abs(Geodesy.bearing(lat1: 0, lon1: 0, lat2: -1, lon2: 0) - 180) < 1e-9)
        #expect(abs(Geodesy.bearing(lat1: 0, lon1: 0, lat2: 0, lon2: -1) - 270) < 1e-9)
        // Crossing the antimeridian eastwards is still east.
        #expect(abs(Geodesy.bearing(lat1: 0, lon1: 179.9, lat2: 0, lon2: -179.9) - 90) < 1e-6)
        #expect(Geodesy.bearing(lat1: 5, lon1: 5, lat2: 5, lon2: 5) == 0)
    }

    @Test(arguments: [(350.0, 10.0, 20.0), (0, 180, 180), (90, 270, 180), (359.5, 0.5, 1), (10, 10, 0), (0, 359.999, 0.001)])
    func angleDifferenceWrapsAround(a: Double, b: Double, expected: Double) {
        #expect(abs(Geodesy.angleDifference(a, b) - expected) < 1e-9)
        #expect(abs(Geodesy.angleDifference(b, a) - expected) < 1e-9)
    }

    @Test func normalizedDegreesStaysInRange() {
        #expect(Geodesy.normalizedDegrees(-90) == 270)
        #expect(Geodesy.normalizedDegrees(720) == 0)
        #expect(Geodesy.normalizedDegrees(-1e-17) == 0)
    }

    @Test func boxesCrossingTheAntimeridian() {
        let box = GeoBox(west: 170, south: -10, east: -170, north: 10)
        #expect(box.contains(lat: 0, lon: 175))
        #expect(box.contains(lat: 0, lon: -175))
        #expect(box.contains(lat: 0, lon: 180))
        #expect(box.contains(lat: 0, lon: -180))
        #expect(!box.contains(lat: 0, lon: 0))
        #expect(!box.contains(lat: 11, lon: 175))
        // 180 and -180 are one meridian: a post stored at 180 is inside a box that names -180.
        #expect(GeoBox(west: -180, south: -1, east: -179, north: 1).contains(lat: 0, lon: 180))
        #expect(GeoBox(west: 179, south: -1, east: 180, north: 1).contains(lat: 0, lon: -180))
    }

    /// Four-byte units lose nothing: the double a unit count stands for is the one the
    /// database parses from its decimal text, and it converts back to the same count.
    @Test func fixedDegreesRoundTripExactly() {
        var rng = SeededGenerator(seed: 17)
        for _ in 0..<100_000 {
            let units = Int64.random(in: -1_800_000_000...1_800_000_000, using: &rng)
            let degrees = FixedDegrees.degrees(units: units)
            #expect(FixedDegrees.units(of: degrees) == units)
            #expect(FixedDegrees.quantized(degrees) == degrees)
            let sign = units < 0 ? "-" : ""
            let magnitude = units.magnitude
            let text = "\(sign)\(magnitude / 10_000_000).\(String(magnitude % 10_000_000).leftPadded(to: 7))"
            #expect(Double(text) == degrees, "\(text)")
        }
        #expect(FixedDegrees.quantized(22.419612345678) == 22.4196123)
        #expect(FixedDegrees.quantized(-179.99999996) == -180)
        #expect(FixedDegrees.quantizedHeading(359.99999996) == 0)
        #expect(FixedDegrees.quantizedHeading(270) == 270)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
