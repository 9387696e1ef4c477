import BoardTestSupport
import Foundation
import GeoIndex
@testable import NoticeBoardCore
import Testing

@Suite struct QueryParametersTests {
    func nearbyFailure(_ query: String) -> String?? {
        do {
            _ = try NearbyQuery(QueryParameters(urlQuery: query))
            return .none
        } catch {
            return .some(error.field)
        }
    }

    @Test func defaultsOfNearby() throws {
        let q = try NearbyQuery(QueryParameters(urlQuery: "lat=1&lon=2"))
        #expect(q.center == .coordinates(lat: 1, lon: 2))
        #expect(q.radius == 100 && q.limit == 50 && q.order == .distance)
        #expect(q.cone == nil && q.headingFilter == nil && q.tags.isEmpty && q.floor == nil)
    }

    @Test func coneAndHeadingOnlyWithTheirAnchors() throws {
        let q = try NearbyQuery(QueryParameters(urlQuery: "lat=1&lon=2&facing=350&accuracy=5&heading=10&tolerance=20"))
        #expect(q.cone == NearbySearch.ViewCone(facing: 350, fov: 60, accuracy: 5))
        #expect(q.headingFilter == NearbySearch.HeadingFilter(heading: 10, tolerance: 20))
        let alone = try NearbyQuery(QueryParameters(urlQuery: "lat=1&lon=2&fov=90&tolerance=10"))
        #expect(alone.cone == nil && alone.headingFilter == nil)
    }

    @Test func formDecodingTurnsPlusIntoSpace() throws {
        let q = try NearbyQuery(QueryParameters(urlQuery: "lat=1&lon=2&tag=Street+Food&tag=%E7%BE%8E%E9%A3%9F&from=2026-11-21T11:00:00%2B01:00"))
        #expect(q.tags == ["street food", "美食"])
        #expect(q.from == 1_795_255_200_000)
    }

    @Test(arguments: [
        ("lon=2", "lat"), ("lat=1", "lon"), ("lat=abc&lon=2", "lat"), ("lat=NaN&lon=2", "lat"), ("lat=1&lon=inf", "lon"),
        ("lat=91&lon=2", "lat"), ("lat=1&lon=2&radius=0", "radius"), ("lat=1&lon=2&radius=50001", "radius"),
        ("lat=1&lon=2&facing=360", "facing"), ("lat=1&lon=2&fov=0", "fov"), ("lat=1&lon=2&fov=361", "fov"),
        ("lat=1&lon=2&accuracy=1001", "accuracy"), ("lat=1&lon=2&heading=-1", "heading"), ("lat=1&lon=2&tolerance=181", "tolerance"),
        ("lat=1&lon=2&tag=a!", "tag"), ("lat=1&lon=2&from=yesterday", "from"), ("lat=1&lon=2&to=2026", "to"),
        ("lat=1&lon=2&floor=1.5", "floor"), ("lat=1&lon=2&floor=-21", "floor"), ("lat=1&lon=2&order=random", "order"),
        ("lat=1&lon=2&limit=0", "limit"), ("lat=1&lon=2&limit=501", "limit"), ("lat=1&lon=2&cursor=%%%", "cursor"),
        ("lat=1&lon=2&cursor=abc", "cursor"), ("beacon=xyz", "beacon"),
    ])
    func nearbyRejectsBadParametersNamingThem(query: String, field: String) {
        #expect(nearbyFailure(query) == .some(field))
    }

    @Test func tagsCountInABoxOrACircleNeverBoth() throws {
        let box = try TagsQuery(QueryParameters(urlQuery: "bbox=1,2,3,4"))
        #expect(box.circle == nil && box.box == GeoBox(west: 1, south: 2, east: 3, north: 4))
        #expect(try TagsQuery(QueryParameters(urlQuery: "")).box == .world)
        let circle = try TagsQuery(QueryParameters(urlQuery: "lat=1&lon=179.9999&radius=5000"))
        #expect(circle.circle == TagsQuery.Circle(lat: 1, lon: 179.9999, radius: 5000))
        #expect(circle.box == AreaGrid.box(aroundCircle: 1, lon: 179.9999, radius: 5000) && circle.box.crossesAntimeridian)
        #expect(try TagsQuery(QueryParameters(urlQuery: "lat=1&lon=2")).circle?.radius == 100)
        for (query, field) in [
            ("bbox=1,2,3,4&lat=1&lon=2", "bbox"), ("lat=1&radius=50", "lon"), ("lon=2", "lat"), ("radius=50", "lat"),
            ("lat=1&lon=2&radius=0", "radius"), ("lat=1&lon=2&radius=50001", "radius"), ("lat=95&lon=2", "lat"),
        ] {
            #expect(throws: ValidationError.self, "\(query)") { try TagsQuery(QueryParameters(urlQuery: query)) }
            do {
                _ = try TagsQuery(QueryParameters(urlQuery: query))
            } catch {
                #expect(error.field == field, "\(query)")
            }
        }
    }

    @Test func cursorsRoundTripAndKeepTheirOrder() throws {
        for cursor in [PageCursor.distance(12.345678901234, id: 7), .distance(0, id: 1), .time(createdAt: 1_795_255_200_123, id: 99)] {
            #expect(try PageCursor(decoding: cursor.encoded) == cursor)
        }
        let newestCursor = PageCursor.time(createdAt: 5, id: 5).encoded
        #expect(nearbyFailure("lat=1&lon=2&cursor=\(newestCursor)") == .some("cursor"))
        #expect(nearbyFailure("lat=1&lon=2&order=newest&cursor=\(newestCursor)") == .none)
    }

    @Test func cursorBase64MatchesFoundationsForEveryLengthAndByte() {
        let seed = SeededGenerator.runSeed()
        print("cursorBase64 seed \(seed)")
        var generator = SeededGenerator(seed: seed)
        for length in 0..<64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == foundation, "bytes: \(bytes)")
            #expect(Base64URL.decode(foundation) == bytes, "bytes: \(bytes)")
        }
    }

    @Test func boxes() throws {
        #expect(try QueryParameters(urlQuery: "bbox=170,-10,-170,10").box() == GeoBox(west: 170, south: -10, east: -170, north: 10))
        for bad in ["1,2,3", "a,b,c,d", "0,10,1,5", "-181,0,0,1", "0,-91,1,0", "0,0,1,1,2", "0,0,nan,1"] {
            #expect(throws: ValidationError.self) { try QueryParameters(urlQuery: "bbox=\(bad)").box() }
        }
    }
}
