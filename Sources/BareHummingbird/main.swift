import Hummingbird

// The floor a request costs in Hummingbird on this machine: one route, the default
// configuration, no middleware. `scripts/load-test`'s request-cost phase measures `/healthz`
// of the real server beside this. Usage: bare-hummingbird PORT
let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 8080
let router = Router()
router.get("/healthz") { _, _ in
    Response(
        status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
