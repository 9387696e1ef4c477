import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NoticeBoardCore
import Testing

/// Places and announcements through the HTTP API on a real PostgreSQL.
@Suite(.timeLimit(.minutes(5))) struct PlaceTests {
    struct PlaceBody: Decodable {
        var slug: String
        var name: String
        var polygon: [[Double]]
        var floors: [Int]?
        var description: String
        var postCount: Int
    }

    struct PlacePage: Decodable {
        var places: [PlaceBody]
        var nextCursor: String?
    }

    struct AnnouncementBody: Decodable, Equatable {
        var id: Int64
        var place: String
        var message: String
        var createdAt: String
        var until: String
    }

    struct Announcements: Decodable {
        var announcements: [AnnouncementBody]
    }

    /// A square of 0.001° around (22.4195, 114.2065), as JSON.
    static let square = "[[114.2060,22.4190],[114.2070,22.4190],[114.2070,22.4200],[114.2060,22.4200]]"

    static func put(_ http: any TestClientProtocol, _ token: String, _ slug: String, _ body: String) async throws -> TestResponse {
        try await http.execute(
            uri: "/api/v1/moderation/places/\(slug)", method: .put, headers: ModerationTests.bearer(token), body: ByteBuffer(string: body))
    }

    static func token(_ http: any TestClientProtocol) async throws -> String {
        try await ModerationTests.login(http).decoded(ModerationTests.TokenBody.self).token
    }

    static func iso(_ date: Date) -> String { Timestamp.format(milliseconds: Int64(date.timeIntervalSince1970 * 1000)) }

    @Test func moderatorsManagePlacesAndEveryoneReadsThem() async throws {
        try await ModerationTests.app().test { http, _ in
            let body = #"{"name": "Canteen", "polygon": \#(Self.square), "floors": [0, 2], "description": "Hot food"}"#
            #expect(try await http.execute(uri: "/api/v1/moderation/places/canteen", method: .put, headers: [.contentType: "application/json"],
                                           body: ByteBuffer(string: body)).status == .unauthorized)
            let token = try await Self.token(http)
            #expect(try await Self.put(http, token, "canteen", body).status == .created)
            let replaced = try await Self.put(http, token, "canteen", body.replacingOccurrences(of: "Hot food", with: "Hot food, cheap"))
            #expect(replaced.status == .ok)
            let place = try await http.get("/api/v1/places/canteen").decoded(PlaceBody.self)
            #expect(place.name == "Canteen" && place.floors == [0, 2] && place.description == "Hot food, cheap" && place.postCount == 0)
            #expect(place.polygon == [[114.206, 22.419], [114.207, 22.419], [114.207, 22.42], [114.206, 22.42]])
            #expect(try await http.get("/api/v1/places/nowhere").status == .notFound)
            // The closing repeat is allowed and not stored twice.
            let closed = #"{"name": "Hall", "polygon": [[0,0],[1,0],[1,1],[0,0]]}"#
            #expect(try await Self.put(http, token, "hall", closed).status == .created)
            #expect(try await http.get("/api/v1/places/hall").decoded(PlaceBody.self).polygon.count == 3)
            // Listing: by slug, paged, narrowed by a box or by a point.
            let first = try await http.get("/api/v1/places?limit=1").decoded(PlacePage.self)
            #expect(first.places.map(\.slug) == ["canteen"])
            let second = try await http.get("/api/v1/places?limit=1&cursor=\(first.nextCursor ?? "")").decoded(PlacePage.self)
            #expect(second.places.map(\.slug) == ["hall"] && second.nextCursor == nil)
            #expect(try await http.get("/api/v1/places?bbox=114,22,115,23").decoded(PlacePage.self).places.map(\.slug) == ["canteen"])
            #expect(try await http.get("/api/v1/places?bbox=-1,-1,0,0").decoded(PlacePage.self).places.map(\.slug) == ["hall"])
            #expect(try await http.get("/api/v1/places?lat=22.4195&lon=114.2065&floor=1").decoded(PlacePage.self).places.map(\.slug) == ["canteen"])
            #expect(try await http.get("/api/v1/places?lat=22.4195&lon=114.2065&floor=5").decoded(PlacePage.self).places.isEmpty)
            #expect(try await http.get("/api/v1/places?lat=0.2&lon=0.5").decoded(PlacePage.self).places.map(\.slug) == ["hall"])
            for (uri, field) in [("/api/v1/places?cursor=Bad!", "cursor"), ("/api/v1/places?lat=1", "lon"), ("/api/v1/places?bbox=1,2", "bbox")] {
                let response = try await http.get(uri)
                #expect(try response.status == .badRequest && response.decoded(ErrorBody.self).error.field == field, "\(uri)")
            }
            let delete = { (slug: String) in
                try await http.execute(uri: "/api/v1/moderation/places/\(slug)", method: .delete, headers: ModerationTests.bearer(token)).status
            }
            #expect(try await delete("hall") == .noContent)
            #expect(try await delete("hall") == .notFound)
            #expect(try await http.get("/api/v1/places/hall").status == .notFound)
            let audit = try await http.execute(uri: "/api/v1/moderation/audit", method: .get, headers: ModerationTests.bearer(token))
                .decoded(ModerationTests.AuditBody.self)
            #expect(audit.entries.map(\.action) == ["place_delete", "place_put", "place_put", "place_put"])
            #expect(audit.entries.map(\.reason) == ["hall", "hall", "canteen", "canteen"])
        }
    }

    @Test func badPlacesAreRefusedNamingTheField() async throws {
        try await ModerationTests.app().test { http, _ in
            let token = try await Self.token(http)
            let circle = { (count: Int) in
                "[" + (0..<count).map { i in
                    let angle = Double(i) / Double(count) * 2 * .pi
                    return "[\(114.2 + 0.01 * cos(angle)),\(22.4 + 0.01 * sin(angle))]"
                }.joined(separator: ",") + "]"
            }
            let cases: [(String, String)] = [
                (#"{"name": "x", "polygon": [[0,0],[1,1],[1,0],[0,1]]}"#, "polygon"),  // a bow tie
                (#"{"name": "x", "polygon": [[-180,80],[-90,80],[0,80],[90,80]]}"#, "polygon"),  // around the north pole
                (#"{"name": "x", "polygon": [[0,0],[1,1]]}"#, "polygon"),
                (#"{"name": "x", "polygon": \#(circle(1001))}"#, "polygon"),
                (#"{"name": "x", "polygon": [[0,0],[1e999,0],[1,1]]}"#, "polygon"),
                (#"{"name": "x", "polygon": [[0,0],[181,0],[1,1]]}"#, "polygon"),
                (#"{"name": "x", "polygon": [[0,0],[1,0],[1,91]]}"#, "polygon"),
                (#"{"name": "x", "polygon": [[0,0],[1,0,5],[1,1]]}"#, "polygon"),
                (#"{"name": "x", "polygon": [[0,0],["1",0],[1,1]]}"#, "polygon"),
                (#"{"name": "x", "polygon": "square"}"#, "polygon"),
                (#"{"name": "x"}"#, "polygon"),
                (#"{"polygon": \#(Self.square)}"#, "name"),
                (#"{"name": "", "polygon": \#(Self.square)}"#, "name"),
                (#"{"name": "x", "polygon": \#(Self.square), "floors": [3, 1]}"#, "floors"),
                (#"{"name": "x", "polygon": \#(Self.square), "floors": [0.5, 1]}"#, "floors"),
                (#"{"name": "x", "polygon": \#(Self.square), "floors": 2}"#, "floors"),
                (#"{"name": "x", "polygon": \#(Self.square), "description": 7}"#, "description"),
            ]
            for (body, field) in cases {
                let response = try await Self.put(http, token, "place", body)
                #expect(response.status == .badRequest, "\(body.prefix(120))")
                #expect((try? response.decoded(ErrorBody.self).error.field) == field, "\(body.prefix(120)): \(String(buffer: response.body))")
            }
            let badSlug = try await Self.put(http, token, "Bad_Slug", #"{"name": "x", "polygon": \#(Self.square)}"#)
            #expect(try badSlug.status == .badRequest && badSlug.decoded(ErrorBody.self).error.field == "slug")
            // Nothing half-stored: no place, no audit entry.
            #expect(try await http.get("/api/v1/places").decoded(PlacePage.self).places.isEmpty)
            // A thousand vertices (about 26 KB) fit; 64 KiB does not.
            #expect(try await Self.put(http, token, "ring", #"{"name": "Ring", "polygon": \#(circle(1000))}"#).status == .created)
            let huge = #"{"name": "x", "description": "\#(String(repeating: "a", count: 70_000))", "polygon": \#(Self.square)}"#
            #expect(try await Self.put(http, token, "huge", huge).status == .contentTooLarge)
        }
    }

    @Test func queriesKeepOnlyPostsInsideThePlaceAndOnItsFloors() async throws {
        try await ModerationTests.app().test { http, _ in
            let token = try await Self.token(http)
            #expect(try await Self.put(http, token, "canteen", #"{"name": "Canteen", "polygon": \#(Self.square)}"#).status == .created)
            #expect(try await Self.put(http, token, "upstairs", #"{"name": "Upstairs", "polygon": \#(Self.square), "floors": [1, 2]}"#).status == .created)
            // Inside, on an edge, on a vertex, and a hair outside.
            let spots: [(Double, Double, String, String)] = [
                (22.4195, 114.2065, "inside", ""), (22.4190, 114.2065, "edge", #", "floor": 1"#), (22.4200, 114.2070, "vertex", #", "floor": 3"#),
                (22.4200001, 114.2065, "outside", #", "floor": 1"#), (22.4195, 114.2059999, "west", ""),
            ]
            for (lat, lon, message, extra) in spots {
                #expect(try await http.postJSON(postJSON(lat: lat, lon: lon, message: message, extra: extra)).status == .created)
            }
            let inCanteen = Set(try await http.allPages("/api/v1/posts?place=canteen").map(\.message))
            #expect(inCanteen == ["inside", "edge", "vertex"])
            #expect(Set(try await http.allPages("/api/v1/posts?place=upstairs").map(\.message)) == ["edge"])
            #expect(Set(try await http.allPages("/api/v1/posts/nearby?lat=22.4195&lon=114.2065&radius=1000&place=canteen").map(\.message)) == inCanteen)
            #expect(Set(try await http.allPages("/api/v1/posts/nearby?lat=22.4195&lon=114.2065&radius=1000&place=canteen&floor=3").map(\.message)) == ["vertex"])
            #expect(try await http.allPages("/api/v1/posts?place=canteen&bbox=114.2066,22.41,114.21,22.43").map(\.message) == ["vertex"])
            struct Clusters: Decodable { var total: Int }
            #expect(try await http.get("/api/v1/posts/clusters?zoom=10&place=canteen").decoded(Clusters.self).total == 3)
            struct Tags: Decodable { struct Count: Decodable { var tag: String; var count: Int }; var tags: [Count] }
            #expect(try await http.get("/api/v1/tags?place=canteen").decoded(Tags.self).tags.map(\.count) == [3])
            #expect(try await http.get("/api/v1/places/canteen").decoded(PlaceBody.self).postCount == 3)
            #expect(try await http.get("/api/v1/places/upstairs").decoded(PlaceBody.self).postCount == 1)
            for uri in ["/api/v1/posts?place=nowhere", "/api/v1/posts/nearby?lat=1&lon=1&place=nowhere", "/api/v1/posts/clusters?zoom=3&place=nowhere",
                        "/api/v1/tags?place=nowhere", "/api/v1/posts?place=Not%20A%20Slug", "/api/v1/posts/stream?place=nowhere"] {
                let response = try await http.get(uri)
                #expect(try response.status == .badRequest && response.decoded(ErrorBody.self).error.field == "place", "\(uri)")
            }
        }
    }

    @Test func announcementsLastUntilTheirEnd() async throws {
        try await ModerationTests.app().test { http, _ in
            let token = try await Self.token(http)
            #expect(try await Self.put(http, token, "canteen", #"{"name": "Canteen", "polygon": \#(Self.square)}"#).status == .created)
            let announce = { (slug: String, body: String) in
                try await http.execute(uri: "/api/v1/moderation/places/\(slug)/announcements", method: .post,
                                       headers: ModerationTests.bearer(token), body: ByteBuffer(string: body))
            }
            // Ten seconds leaves room for a slow, busy machine between the post and the listing.
            let soonDate = Date().addingTimeInterval(10)
            let soon = Self.iso(soonDate), later = Self.iso(Date().addingTimeInterval(3600))
            let first = try await announce("canteen", #"{"message": "Closing early", "until": "\#(soon)"}"#)
            #expect(first.status == .created)
            let second = try await announce("canteen", #"{"message": "  Soup today\r\n", "until": "\#(later)"}"#).decoded(AnnouncementBody.self)
            #expect(second.message == "Soup today" && second.place == "canteen" && second.until == later)
            let current = try await http.get("/api/v1/places/canteen/announcements").decoded(Announcements.self).announcements
            #expect(current.map(\.message) == ["Soup today", "Closing early"])
            #expect(try await announce("nowhere", #"{"message": "x", "until": "\#(later)"}"#).status == .notFound)
            for (body, field) in [(#"{"message": "x", "until": "2020-01-01T00:00:00Z"}"#, "until"),
                                  (#"{"message": "x", "until": "\#(Self.iso(Date().addingTimeInterval(400 * 86400)))"}"#, "until"),
                                  (#"{"message": "x", "until": "tomorrow"}"#, "until"), (#"{"message": "", "until": "\#(later)"}"#, "message"),
                                  (#"{"until": "\#(later)"}"#, "message")] {
                let response = try await announce("canteen", body)
                #expect(try response.status == .badRequest && response.decoded(ErrorBody.self).error.field == field, "\(body)")
            }
            // The first one ends by itself.
            try await Task.sleep(for: .seconds(max(0, soonDate.timeIntervalSinceNow) + 0.3))
            #expect(try await http.get("/api/v1/places/canteen/announcements").decoded(Announcements.self).announcements.map(\.message) == ["Soup today"])
            let remove = { (id: String) in
                try await http.execute(uri: "/api/v1/moderation/announcements/\(id)", method: .delete, headers: ModerationTests.bearer(token)).status
            }
            #expect(try await remove("\(second.id)") == .noContent)
            #expect(try await remove("\(second.id)") == .notFound)
            #expect(try await remove("zero") == .notFound, "an id that is not a positive integer names no announcement")
            #expect(try await http.get("/api/v1/places/canteen/announcements").decoded(Announcements.self).announcements.isEmpty)
            #expect(try await http.get("/api/v1/places/nowhere/announcements").status == .notFound)
        }
    }

    /// A board keeps a bounded number of places (10 000; 3 here): the next new one is a 409 and
    /// nothing is written; an existing place can still be redrawn, and a deletion makes room.
    @Test func aNewPlacePastTheLimitIsRefusedAndNothingIsLost() async throws {
        var app = try await ModerationTests.app()
        app.placeLimit = 3
        try await app.test { http, _ in
            let token = try await Self.token(http)
            let body = #"{"name": "Canteen", "polygon": \#(Self.square)}"#
            for slug in ["canteen", "hall", "library"] { #expect(try await Self.put(http, token, slug, body).status == .created) }
            let refused = try await Self.put(http, token, "cafe", body)
            #expect(refused.status == .conflict)
            #expect(try refused.decoded(ErrorBody.self).error.message.contains("3 places"))
            #expect(try await http.get("/api/v1/places/cafe").status == .notFound)
            #expect(try await http.get("/api/v1/places").decoded(PlacePage.self).places.map(\.slug) == ["canteen", "hall", "library"])
            #expect(try await Self.put(http, token, "canteen", body.replacingOccurrences(of: "Canteen", with: "Canteen, east")).status == .ok)
            #expect(try await http.get("/api/v1/places/canteen").decoded(PlaceBody.self).name == "Canteen, east")
            #expect(try await http.execute(uri: "/api/v1/moderation/places/hall", method: .delete, headers: ModerationTests.bearer(token)).status == .noContent)
            #expect(try await Self.put(http, token, "cafe", body).status == .created)
        }
    }

    /// A place put on one instance is followed by another sharing the database within a second of
    /// its commit (timed from each answer: the whole suite runs at once, and a busy first instance
    /// may take a while to answer, which is not the second one's lag).
    @Test func anotherInstanceFollowsWithinASecond() async throws {
        let first = try await ModerationTests.app()
        let second = TestApp(endpoint: first.endpoint)
        try await first.test { httpA, _ in
            try await second.test { httpB, _ in
                let token = try await Self.token(httpA)
                #expect(try await httpB.get("/api/v1/posts?place=canteen").status == .badRequest)
                #expect(try await Self.put(httpA, token, "canteen", #"{"name": "Canteen", "polygon": \#(Self.square)}"#).status == .created)
                let started = ContinuousClock.now
                while try await httpB.get("/api/v1/places/canteen").status != .ok {
                    #expect(ContinuousClock.now - started < .seconds(1), "the second instance did not see the place within a second")
                    if ContinuousClock.now - started > .seconds(5) { return }
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(ContinuousClock.now - started < .seconds(1))
                #expect(try await httpB.get("/api/v1/posts?place=canteen").status == .ok)
                #expect(try await httpA.execute(uri: "/api/v1/moderation/places/canteen", method: .delete, headers: ModerationTests.bearer(token)).status == .noContent)
                let deleted = ContinuousClock.now
                while try await httpB.get("/api/v1/places/canteen").status != .notFound {
                    if ContinuousClock.now - deleted > .seconds(5) { break }
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(ContinuousClock.now - deleted < .seconds(1))
            }
        }
    }
}
