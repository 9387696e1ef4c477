import HTTPTypes
import Hummingbird
import Logging
import NoticeBoardCore

/// Gives every request an id on every log line it causes and in the `X-Request-Id` response
/// header. A well-formed id sent by a proxy is kept, so one id follows a request through both;
/// anything else is replaced by Hummingbird's own. Finished requests are logged at debug
/// (server errors at error, 503 excepted), without bodies, tokens or query values that might hold them.
struct RequestIdMiddleware<Context: RequestContext>: RouterMiddleware {
    static var headerName: HTTPField.Name { HTTPField.Name("X-Request-Id")! }
    static var metadataKey: String { "request_id" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let generated = context.logger[metadataKey: "hb.request.id"].map { "\($0)" } ?? ""
        let id = request.headers[Self.headerName].flatMap { Self.isAcceptable($0) ? $0 : nil } ?? generated
        context.logger[metadataKey: "hb.request.id"] = nil
        context.logger[metadataKey: Self.metadataKey] = .string(id)
        let started = ContinuousClock.now
        var response = try await next(request, context)
        response.headers[Self.headerName] = id
        let elapsed = ContinuousClock.now - started
        let metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue), "path": .string(request.uri.path),
            "status": .stringConvertible(response.status.code), "duration_ms": .stringConvertible(elapsed.milliseconds),
        ]
        // 503 is expected while loading or when the database is away (logged once as such).
        let level: Logger.Level = response.status.code >= 500 && response.status.code != 503 ? .error : .debug
        context.logger.log(level: level, "request finished", metadata: metadata)
        return response
    }

    /// 1...128 characters of letters, digits, `-`, `_`, `.`: safe in a log line and a header.
    static func isAcceptable(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 45 || byte == 95 || byte == 46
            }
    }
}
