import Foundation
import Hummingbird
import HummingbirdTesting
import DatabaseTestSupport
import Logging
import NoticeBoardCore
import NoticeBoardPostgres
import NoticeBoardServer
import PostgresNIO
import ServiceLifecycle
import Testing

/// The application as production builds it, on a fresh real database.
struct TestApp {
    var endpoint: DatabaseEndpoint
    var settings = ServerSettings(port: 0, postRatePerMinute: 0)
    var placeLimit = PlaceLimits.places
    /// Webhooks and push with their dispatcher and sender, as `serve` wires them (their routes
    /// answer 503 without). Off by default: the two poll the database, which every app at once starves.
    var outbox = false
    /// Run beside the database client (a test's own services).
    var services: [any Service] = []
    var watchdog: ShutdownWatchdog?

    static func make() async throws -> TestApp { TestApp(endpoint: try await TestDatabase.fresh()) }

    /// Runs the app (its database client and index loader as services) and waits until ready.
    func test<T: Sendable>(
        _ setup: TestingSetup = .router, _ body: @Sendable @escaping (any TestClientProtocol, Board) async throws -> T
    ) async throws -> T {
        let client = PostgresClient(configuration: endpoint.clientConfiguration(), backgroundLogger: TestDatabase.logger)
        let moderation = PostgresModerationStore(client: DatabasePool(client), logger: TestDatabase.logger)
        let board = Board(
            store: PostgresPostStore(client: DatabasePool(client), logger: TestDatabase.logger), moderation: moderation,
            beacons: PostgresBeaconStore(client: DatabasePool(client), logger: TestDatabase.logger),
            places: PostgresPlaceStore(client: DatabasePool(client), logger: TestDatabase.logger, placeLimit: placeLimit),
            likes: PostgresLikeStore(client: DatabasePool(client), logger: TestDatabase.logger),
            replies: PostgresReplyStore(client: DatabasePool(client), logger: TestDatabase.logger),
            history: PostgresDeviceHistoryStore(client: DatabasePool(client), logger: TestDatabase.logger))
        var application = ApplicationSetup(board: board, accounts: moderation, settings: settings, logger: TestDatabase.logger)
        application.services = [client] + services
        application.watchdog = watchdog
        if outbox { application.outbox = PostgresOutboxStore(client: DatabasePool(client), logger: TestDatabase.logger) }
        return try await buildApplication(application).test(setup) { http in
            try await Self.waitUntilReady(http)
            return try await body(http, board)
        }
    }

    /// Polls `/readyz` for at most `limit`; a server that never gets ready fails the test.
    static func waitUntilReady(_ http: any TestClientProtocol, limit: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + limit
        while try await http.execute(uri: "/readyz", method: .get).status != .ok {
            guard ContinuousClock.now < deadline else { throw TestAppError.notReady(after: limit) }
            try await Task.sleep(for: .milliseconds(25))
        }
    }
}

enum TestAppError: Error {
    case notReady(after: Duration)
}


// MARK: - Response bodies

struct PostBody: Decodable, Equatable {
    var id: Int64
    var lat: Double
    var lon: Double
    var heading: Double?
    var message: String
    var tag: String
    var createdAt: String
    var accuracy: Double?
    var floor: Int?
    var beacon: String?
    var distance: Double?
    var bearing: Double?
}

struct PageBody: Decodable {
    var posts: [PostBody]
    var nextCursor: String?
}

struct TagCountBody: Decodable, Equatable {
    var tag: String
    var count: Int
}

struct TagCountsBody: Decodable {
    var tags: [TagCountBody]
}

struct ErrorBody: Decodable {
    struct Detail: Decodable {
        var code: String
        var message: String
        var field: String?
    }
    var error: Detail
}

extension TestResponse {
    func decoded<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(buffer: body))
    }
}

extension TestClientProtocol {
    func postJSON(_ json: String, headers: HTTPFields = [:], uri: String = "/api/v1/posts") async throws -> TestResponse {
        var fields = headers
        if fields[.contentType] == nil { fields[.contentType] = "application/json" }
        return try await execute(uri: uri, method: .post, headers: fields, body: ByteBuffer(string: json))
    }

    func get(_ uri: String) async throws -> TestResponse {
        try await execute(uri: uri, method: .get)
    }

    /// Follows `nextCursor` to the end and returns every post in order.
    func allPages(_ uri: String) async throws -> [PostBody] {
        var posts: [PostBody] = []
        var cursor: String?
        repeat {
            let separator = uri.contains("?") ? "&" : "?"
            let page = try await get(uri + (cursor.map { "\(separator)cursor=\($0)" } ?? ""))
            #expect(page.status == .ok, "\(uri): \(String(buffer: page.body))")
            let body = try page.decoded(PageBody.self)
            posts += body.posts
            cursor = body.nextCursor
            if posts.count > 100_000 { Issue.record("paging does not end"); break }
        } while cursor != nil
        return posts
    }
}

func postJSON(lat: Double, lon: Double, message: String = "hello", tag: String = "food", extra: String = "") -> String {
    #"{"lat": \#(lat), "lon": \#(lon), "message": "\#(message)", "tag": "\#(tag)"\#(extra)}"#
}
