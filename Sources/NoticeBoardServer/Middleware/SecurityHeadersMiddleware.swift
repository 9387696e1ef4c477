import HTTPTypes
import Hummingbird

/// Headers every response carries: a Content-Security-Policy that allows only the page's own
/// scripts and styles (map tiles and their images from https), no MIME sniffing, no referrer
/// beyond the origin, and no framing by other sites.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var contentSecurityPolicy: String {
        [
            "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: https:",
            "connect-src 'self'", "font-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'",
            "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "strict-origin-when-cross-origin"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        // Tokens and what only moderators may see must not stay in any cache.
        let path = request.uri.path
        if path.hasPrefix("/api/v1/auth/") || path.hasPrefix("/api/v1/moderation/") {
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }
}
