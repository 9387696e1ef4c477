import Hummingbird

/// Refuses paths outside the API that file serving would misread, before a file middleware sees
/// them: an empty segment (`//moderate` redirected to `//moderate/` is another host to a
/// browser), an encoded slash or backslash, a NUL byte (`/app.js%00.html`), a `..` segment.
/// And a file middleware's redirect must only add the trailing slash to the path asked for.
struct PathSafetyMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let raw = request.uri.path
        // API routes validate their own path parameters (a bad beacon UUID is a 400 on `uuid`).
        guard raw.hasPrefix("/api/") || Self.isSafe(raw) else { throw APIError.notFound("no route for this path") }
        let response = try await next(request, context)
        if (300..<400).contains(response.status.code), let location = response.headers[.location], location != raw + "/" {
            throw APIError.notFound("no route for \(raw)")
        }
        return response
    }

    static func isSafe(_ rawPath: String) -> Bool {
        let lowered = rawPath.lowercased()
        guard rawPath.hasPrefix("/"), !rawPath.contains("//"), !rawPath.contains("\\"),
            !lowered.contains("%2f"), !lowered.contains("%5c"), !lowered.contains("%00")
        else { return false }
        let decoded = rawPath.removingPercentEncoding ?? rawPath
        guard !decoded.contains("\0"), !decoded.contains("//") else { return false }
        return !decoded.split(separator: "/").contains { $0 == ".." || $0 == "." }
    }
}
