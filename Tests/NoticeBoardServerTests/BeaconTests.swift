import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NoticeBoardCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct BeaconTests {
    static let uuid = "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"
    static let path = "/api/v1/moderation/beacons/\(uuid)/1/2"

    struct BeaconBody: Decodable, Equatable {
        var uuid: String
        var major: Int
        var minor: Int
        var lat: Double
        var lon: Double
        var floor: Int?
        var name: String
    }

    static func put(_ http: any TestClientProtocol, _ token: String, _ body: String, path: String = path) async throws -> TestResponse {
        try await http.execute(uri: path, method: .put, headers: ModerationTests.bearer(token), body: ByteBuffer(string: body))
    }

    @Test func theRegistryIsManagedByModeratorsAndReadByAnyone() async throws {
        try await ModerationTests.app().test { http, _ in
            #expect(try await http.execute(uri: Self.path, method: .put, headers: [.contentType: "application/json"],
                                           body: ByteBuffer(string: #"{"lat":1,"lon":2}"#)).status == .unauthorized)
            let token = try await ModerationTests.login(http).decoded(ModerationTests.TokenBody.self).token
            let created = try await Self.put(http, token, #"{"lat": 48.85, "lon": 2.35, "floor": 3, "name": "Canteen"}"#)
            #expect(created.status == .created)
            let moved = try await Self.put(http, token, #"{"lat": 48.86, "lon": 2.36, "floor": 3, "name": "Canteen"}"#)
            #expect(moved.status == .ok)
            let fetched = try await http.get("/api/v1/beacons/\(Self.uuid.lowercased())/1/2").decoded(BeaconBody.self)
            #expect(fetched == BeaconBody(uuid: Self.uuid.lowercased(), major: 1, minor: 2, lat: 48.86, lon: 2.36, floor: 3, name: "Canteen"))
            #expect(try await http.get("/api/v1/beacons/\(Self.uuid)/1/3").status == .notFound)
            for (uri, field) in [("/api/v1/beacons/not-a-uuid/1/2", "uuid"), ("/api/v1/beacons/\(Self.uuid)/65536/2", "major"),
                                 ("/api/v1/beacons/\(Self.uuid)/1/-1", "minor")] {
                let response = try await http.get(uri)
                #expect(response.status == .badRequest, "\(uri)")
                #expect(try response.decoded(ErrorBody.self).error.field == field, "\(uri)")
            }
            for (body, field) in [(#"{"lon": 2}"#, "lat"), (#"{"lat": 1, "lon": 200}"#, "lon"), (#"{"lat": 1, "lon": 2, "floor": 1.5}"#, "floor"),
                                  (#"{"lat": 1, "lon": 2, "name": 5}"#, "name")] {
                let response = try await Self.put(http, token, body)
                #expect(response.status == .badRequest, "\(body)")
                #expect(try response.decoded(ErrorBody.self).error.field == field, "\(body)")
            }
            #expect(try await http.execute(uri: Self.path, method: .delete, headers: ModerationTests.bearer(token)).status == .noContent)
            #expect(try await http.execute(uri: Self.path, method: .delete, headers: ModerationTests.bearer(token)).status == .notFound)
            let audit = try await http.execute(uri: "/api/v1/moderation/audit", method: .get, headers: ModerationTests.bearer(token))
                .decoded(ModerationTests.AuditBody.self)
            #expect(audit.entries.map(\.action) == ["beacon_delete", "beacon_put", "beacon_put"])
            #expect(audit.entries.allSatisfy { $0.reason == "\(Self.uuid.lowercased()):1:2" && $0.postId == nil })
        }
    }

    @Test func postsAndQueriesFollowTheBeaconAndItsFloor() async throws {
        try await ModerationTests.app().test { http, _ in
            let token = try await ModerationTests.login(http).decoded(ModerationTests.TokenBody.self).token
            #expect(try await Self.put(http, token, #"{"lat": 48.85, "lon": 2.35, "floor": 3}"#).status == .created)
            let beaconText = "\(Self.uuid):1:2"
            let viaBeacon = try await http.postJSON(#"{"beacon": "\#(beaconText)", "message": "lunch here", "tag": "food"}"#)
            #expect(viaBeacon.status == .created)
            let post = try viaBeacon.decoded(PostBody.self)
            #expect(post.lat == 48.85 && post.lon == 2.35 && post.floor == 3 && post.beacon == beaconText.lowercased())
            let otherFloor = try await http.postJSON(postJSON(lat: 48.85, lon: 2.35, extra: #", "floor": 4"#)).decoded(PostBody.self)
            let noFloor = try await http.postJSON(postJSON(lat: 48.85, lon: 2.35)).decoded(PostBody.self)

            let unknown = try await http.postJSON(#"{"beacon": "\#(Self.uuid):9:9", "message": "m", "tag": "t"}"#)
            #expect(unknown.status == .badRequest)
            #expect(try unknown.decoded(ErrorBody.self).error.field == "beacon")
            let both = try await http.postJSON(#"{"beacon": "\#(beaconText)", "lat": 1, "lon": 1, "message": "m", "tag": "t"}"#)
            #expect(both.status == .badRequest)
            #expect(try both.decoded(ErrorBody.self).error.field == "beacon")

            // The beacon centres the query and brings its floor.
            let byBeacon = try await http.get("/api/v1/posts/nearby?beacon=\(beaconText.lowercased())&radius=50").decoded(PageBody.self)
            #expect(byBeacon.posts.map(\.id) == [post.id])
            let byFloor = try await http.get("/api/v1/posts/nearby?lat=48.85&lon=2.35&floor=4").decoded(PageBody.self)
            #expect(byFloor.posts.map(\.id) == [otherFloor.id])
            let anyFloor = try await http.get("/api/v1/posts/nearby?lat=48.85&lon=2.35").decoded(PageBody.self)
            #expect(Set(anyFloor.posts.map(\.id)) == [post.id, otherFloor.id, noFloor.id])

            // Moving the beacon moves where new queries centre, not the old post.
            #expect(try await Self.put(http, token, #"{"lat": 10, "lon": 10, "floor": 3}"#).status == .ok)
            #expect(try await http.get("/api/v1/posts/nearby?beacon=\(beaconText)&radius=50").decoded(PageBody.self).posts.isEmpty)
            #expect(try await http.get("/api/v1/posts/\(post.id)").decoded(PostBody.self).lat == 48.85)

            // Deleting it keeps the posts where they are.
            #expect(try await http.execute(uri: Self.path, method: .delete, headers: ModerationTests.bearer(token)).status == .noContent)
            #expect(try await http.get("/api/v1/posts/\(post.id)").decoded(PostBody.self) == post)
            let gone = try await http.get("/api/v1/posts/nearby?beacon=\(beaconText)")
            #expect(gone.status == .badRequest)
            #expect(try gone.decoded(ErrorBody.self).error.field == "beacon")
        }
    }
}
