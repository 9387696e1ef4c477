import HTTPTypes
import Hummingbird

/// Headers every response carries: a Content-Security-Policy that allows only the page's own
/// scripts and styles (map tiles and their images from https), no MIME sniffing, no referrer
/// beyond the origin, and no framing by other sites.
enum SecurityHeaders {
    static let contentSecurityPolicy = [
        "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: https:",
        "connect-src 'self'", "font-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'",
        "frame-ancestors 'none'",
    ].joined(separator: "; ")

    static let fields: HTTPFields = [
        .contentSecurityPolicy: contentSecurityPolicy,
        .xContentTypeOptions: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "strict-origin-when-cross-origin",
        HTTPField.Name("X-Frame-Options")!: "DENY",
    ]

    static func add(to response: inout Response, path: String) {
        response.headers.append(contentsOf: fields)
        // Tokens and what only moderators may see must not stay in any cache.
        if path.hasPrefix("/api/v1/auth/") || path.hasPrefix("/api/v1/moderation/") {
            response.headers[.cacheControl] = "no-store"
        }
    }
}
