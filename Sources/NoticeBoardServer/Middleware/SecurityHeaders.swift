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

    /// What a script, style sheet, image or font needs: a policy about framing and what a document
    /// may load means nothing on them, and a phone's first visit asks for some fifty of them.
    static let subresourceFields: HTTPFields = [
        .xContentTypeOptions: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "strict-origin-when-cross-origin",
    ]

    static func add(to response: inout Response, path: String) {
        response.headers.append(contentsOf: isSubresource(response, path: path) ? subresourceFields : fields)
        // Tokens, what only moderators may see and one device's own history must not stay in any cache.
        if path.hasPrefix("/api/v1/auth/") || path.hasPrefix("/api/v1/moderation/") || path.hasPrefix("/api/v1/me/") {
            response.headers[.cacheControl] = "no-store"
        }
    }

    /// A file a document loads, not a document or worker of its own (the service worker's script
    /// is governed by the policy it is sent with, and an SVG opened alone is a document).
    static func isSubresource(_ response: Response, path: String) -> Bool {
        guard path != "/sw.js", let type = response.headers[.contentType] else { return false }
        return type.hasPrefix("text/javascript") || type.hasPrefix("application/javascript") || type.hasPrefix("text/css")
            || (type.hasPrefix("image/") && !type.hasPrefix("image/svg")) || type.hasPrefix("font/")
    }
}
