import Hummingbird

/// Refuses requests whose target is absurdly long before any handler parses it. Headers are
/// bounded by the HTTP decoder (`ServerSettings.serverBuilder`), bodies by the handlers (16 KiB).
struct RequestLimitsMiddleware<Context: RequestContext>: RouterMiddleware {
    static var maxTargetBytes: Int { 8 * 1024 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.description.utf8.count <= Self.maxTargetBytes else {
            throw APIError.invalid("the URL is longer than \(Self.maxTargetBytes) bytes")
        }
        return try await next(request, context)
    }
}
