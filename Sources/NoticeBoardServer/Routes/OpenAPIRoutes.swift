import Foundation
import Hummingbird

/// `GET /api/v1/openapi.json`: the API's OpenAPI 3.1 description, shipped with the binary.
/// schemathesis runs against it in the test command, so it cannot drift from the server.
struct OpenAPIRoutes: Sendable {
    let document: ByteBuffer

    init() {
        let url = Bundle.module.url(forResource: "OpenAPI", withExtension: nil)?.appendingPathComponent("openapi.json")
        let data = url.flatMap { try? Data(contentsOf: $0) } ?? Data(#"{"openapi":"3.1.0","info":{"title":"missing","version":"1"},"paths":{}}"#.utf8)
        document = ByteBuffer(bytes: data)
    }

    func register(on routes: Routes<some RouterMethods<AppRequestContext>>) {
        let document = self.document
        routes.on(.get, "/api/v1/openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-cache"],
                body: .init(byteBuffer: document))
        }
    }
}
