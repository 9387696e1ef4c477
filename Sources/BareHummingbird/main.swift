import Foundation
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle

// Floors for the request-cost and write benchmarks: what Hummingbird and PostgresNIO cost on this
// machine with nothing of ours in the way. Default configuration, no middleware.
//   GET  /healthz        a fixed 15-byte answer (beside the server's `/healthz`);
//   GET  /fixed          BARE_BODY_FILE's bytes, e.g. a real nearby answer (beside nearby);
//   POST /api/v1/posts   decodes {lat, lon, message, tag} and inserts one row into `bench_raw`
//                        through a PostgresNIO pool (beside the server's POST and pgbench), when
//                        BARE_POSTGRES is "host port user password database".
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

var services: [any Service] = []
if let settings = environment["BARE_POSTGRES"]?.split(separator: " ").map(String.init), settings.count == 5 {
    let client = PostgresClient(
        configuration: .init(
            host: settings[0], port: Int(settings[1]) ?? 5432, username: settings[2],
            password: settings[3], database: settings[4], tls: .disable),
        backgroundLogger: Logger(label: "bare-postgres"))
    services.append(client)
    router.post("/api/v1/posts") { request, context -> Response in
        let row = try await request.decode(as: NewRow.self, context: context)
        let rows = try await client.query(
            "INSERT INTO bench_raw (lat, lon, message, tag) VALUES (\(row.lat), \(row.lon), \(row.message), \(row.tag)) RETURNING id")
        var id: Int64 = 0
        for try await (value) in rows.decode(Int64.self) { id = value }
        return Response(
            status: .created, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: #"{"id":\#(id)}"#)))
    }
}
var app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
app.addServices(services)
try await app.runService()
