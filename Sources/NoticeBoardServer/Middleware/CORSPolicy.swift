import HTTPTypes
import Hummingbird

/// Cross-origin access: closed by default (browsers then refuse other sites' scripts the API's
/// answers), open to the configured origins only. A preflight from an allowed origin is
/// answered before routing; any other response to one gets the allow headers added.
struct CORSPolicy: Sendable {
    let allowedOrigins: Set<String>

    static let allowedMethods = "GET, POST, PUT, DELETE"
    static let allowedHeaders = "Content-Type, Authorization, Idempotency-Key, Last-Event-ID"

    /// The answer to a preflight from an allowed origin; nil for every other request.
    func preflight(_ request: Request) -> Response? {
        guard request.method == .options, request.headers[.accessControlRequestMethod] != nil, let origin = allowedOrigin(request)
        else { return nil }
        var headers = Self.allowHeaders(origin)
        headers[.accessControlAllowMethods] = Self.allowedMethods
        headers[.accessControlAllowHeaders] = Self.allowedHeaders
        headers[.accessControlMaxAge] = "600"
        return Response(status: .noContent, headers: headers)
    }

    func decorate(_ response: inout Response, for request: Request) {
        guard let origin = allowedOrigin(request) else { return }
        response.headers.append(contentsOf: Self.allowHeaders(origin))
    }

    private func allowedOrigin(_ request: Request) -> String? {
        guard !allowedOrigins.isEmpty, let origin = request.headers[.origin], allowedOrigins.contains(origin) else { return nil }
        return origin
    }

    static func allowHeaders(_ origin: String) -> HTTPFields {
        [.accessControlAllowOrigin: origin, .vary: "Origin", .accessControlExposeHeaders: "Location, Retry-After, X-Request-Id"]
    }
}
