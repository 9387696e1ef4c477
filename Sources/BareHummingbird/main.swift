import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle

// Floors for the request-cost and write benchmarks: what Hummingbird and PostgresNIO cost on this
// machine with nothing of ours in the way. Default configuration, no middleware.
//   GET  /healthz        a fixed 15-byte answer (beside the server's `/healthz`);
//   GET  /fixed          BARE_BODY_FILE's bytes, e.g. a real nearby answer (beside nearby);
//   POST /api/v1/posts   as BARE_POSTS says (beside the server's POST and pgbench):
//     sink      reads the body and answers 201, storing nothing: HTTP alone;
//     single    decodes {lat, lon, message, tag} and inserts it into `bench_raw`, a statement
//               a post through a PostgresNIO pool;
//     batched   stores each body as a row of `bench_raw`, group-committed as the server does
//               (`BareBatcher`; BARE_IN_FLIGHT statements at once, default 1);
//     batched-posts  the same into `posts`, its indexes and change trigger included.
//   All but sink need BARE_POSTGRES: "host port user password database".
// Usage: bare-hummingbird PORT
let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 8080
let environment = ProcessInfo.processInfo.environment
let router = Router()
router.get("/healthz") { _, _ in
    Response(
        status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
}
if let path = environment["BARE_BODY_FILE"] {
    let fixed = ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: path)))
    router.get("/fixed") { _, _ in
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: fixed))
    }
}

struct NewRow: Decodable {
    let lat: Double
    let lon: Double
    let message: String
    let tag: String?
}

func created(_ id: Int64) -> Response {
    Response(
        status: .created, headers: [.contentType: "application/json; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(string: #"{"id":\#(id)}"#)))
}

var services: [any Service] = []
let database = environment["BARE_POSTGRES"]?.split(separator: " ").map(String.init)
let client = database.flatMap { settings -> PostgresClient? in
    guard settings.count == 5 else { return nil }
    return PostgresClient(
        configuration: .init(
            host: settings[0], port: Int(settings[1]) ?? 5432, username: settings[2],
            password: settings[3], database: settings[4], tls: .disable),
        backgroundLogger: Logger(label: "bare-postgres"))
}
if let client { services.append(client) }

switch (environment["BARE_POSTS"] ?? "single", client) {
case ("sink", _):
    router.post("/api/v1/posts") { request, _ -> Response in
        _ = try await request.body.collect(upTo: 64 * 1024)
        return created(1)
    }
case (let mode, let client?) where mode == "batched" || mode == "batched-posts":
    let batcher = BareBatcher(
        client: client, table: mode == "batched" ? .bare : .posts,
        statementsInFlight: environment["BARE_IN_FLIGHT"].flatMap { Int($0) } ?? 1)
    router.post("/api/v1/posts") { request, _ -> Response in
        let body = try await request.body.collect(upTo: 64 * 1024)
        return created(try await batcher.insert(String(buffer: body)))
    }
case ("single", let client?):
    router.post("/api/v1/posts") { request, context -> Response in
        let row = try await request.decode(as: NewRow.self, context: context)
        let rows = try await client.query(
            "INSERT INTO bench_raw (lat, lon, message, tag) VALUES (\(row.lat), \(row.lon), \(row.message), \(row.tag)) RETURNING id")
        var id: Int64 = 0
        for try await (value) in rows.decode(Int64.self) { id = value }
        return created(id)
    }
default:
    break
}
var app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
app.addServices(services)
try await app.runService()
