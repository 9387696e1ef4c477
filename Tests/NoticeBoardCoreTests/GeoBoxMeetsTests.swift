import GeoIndex
import NoticeBoardCore
import Testing

/// Which places a `bbox` lists: boxes meet when they share a point, the antimeridian being one
/// meridian whether written 180 or -180.
@Suite struct GeoBoxMeetsTests {
    static let cases: [(GeoBox, GeoBox, Bool)] = [
        (GeoBox(west: 170, south: 0, east: 180, north: 10), GeoBox(west: -180, south: 0, east: -170, north: 10), true),
        (GeoBox(west: -180, south: 5, east: -170, north: 6), GeoBox(west: 170, south: 0, east: 180, north: 10), true),
        (GeoBox(west: 170, south: 0, east: 180, north: 10), GeoBox(west: -180, south: 11, east: -170, north: 12), false),
        (GeoBox(west: 170, south: 0, east: 179.9, north: 10), GeoBox(west: -180, south: 0, east: -170, north: 10), false),
        (GeoBox(west: 175, south: 0, east: -175, north: 10), GeoBox(west: -176, south: 1, east: -170, north: 2), true),
        (GeoBox(west: 175, south: 0, east: -175, north: 10), GeoBox(west: -174, south: 1, east: 174, north: 2), false),
        (GeoBox(west: 0, south: 0, east: 1, north: 1), GeoBox(west: 1, south: 1, east: 2, north: 2), true),
        (GeoBox(west: 0, south: 0, east: 1, north: 1), GeoBox(west: 1.0000001, south: 0, east: 2, north: 1), false),
    ]

    @Test(arguments: cases)
    func meetsWhenTheyShareAPoint(_ a: GeoBox, _ b: GeoBox, _ expected: Bool) {
        #expect(a.meets(b) == expected)
        #expect(b.meets(a) == expected)
    }
}
