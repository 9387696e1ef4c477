import HTTPTypes
import Hummingbird

/// Cross-origin access: closed by default (browsers then refuse other sites' scripts the API's
/// answers), open to the configured origins only. A preflight from an allowed origin is
/// answered here, before routing; any other request from one gets the allow headers added.
struct CORSPolicyMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowedOrigins: Set<String>

    static var allowedMethods: String { "GET, POST, PUT, DELETE" }
    static var allowedHeaders: String { "Content-Type, Authorization, Idempotency-Key, Last-Event-ID" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], allowedOrigins.contains(origin) else {
            return try await next(request, context)
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var headers = Self.allowHeaders(origin)
            headers[.accessControlAllowMethods] = Self.allowedMethods
            headers[.accessControlAllowHeaders] = Self.allowedHeaders
            headers[.accessControlMaxAge] = "600"
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        response.headers.append(contentsOf: Self.allowHeaders(origin))
        return response
    }

    static func allowHeaders(_ origin: String) -> HTTPFields {
        [.accessControlAllowOrigin: origin, .vary: "Origin", .accessControlExposeHeaders: "Location, Retry-After, X-Request-Id"]
    }
}
