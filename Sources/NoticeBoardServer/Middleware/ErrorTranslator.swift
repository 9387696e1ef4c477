import Hummingbird
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NoticeBoardCore

/// Turns every failure into the contract's JSON error: validation errors name their field,
/// store outages are 503, a known path with another method is 405, anything unexpected is a
/// logged 500 that never leaks internals.
struct ErrorTranslator: Sendable {
    let routes: RouteTable

    func response(for error: any Error, request: Request, context: some RequestContext) throws -> Response {
        let apiError = translate(error, request: request, context: context)
        if apiError.status == .tooManyRequests {
            Counter(label: "noticeboard_rate_limited_total", dimensions: [("path", context.endpointPath ?? "unknown")]).increment()
        }
        return try apiError.response(from: request, context: context)
    }

    func translate(_ error: any Error, request: Request, context: some RequestContext) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as ValidationError:
            return APIError(error)
        case let error as HTTPParserError:
            // A body whose framing breaks off mid-request (the decoder's other errors never reach a route).
            return .invalid(MalformedRequestResponder.message(for: error))
        case is NIOTooManyBytesError:
            return .payloadTooLarge(limit: JSONBody.maxBytes)
        case StoreError.idempotencyConflict:
            return APIError(.conflict, code: "conflict", message: "this Idempotency-Key was used with a different body", field: "Idempotency-Key")
        case StoreError.limitReached(let reason):
            return APIError(.conflict, code: "conflict", message: reason)
        case StoreError.invalidInput(let reason):
            return .invalid("a value was refused by the database: \(reason)")
        case StoreError.unavailable(let reason):
            context.logger.warning("database unavailable", metadata: ["reason": "\(reason)"])
            return .unavailable("the database is unavailable; retry shortly")
        case let error as HTTPError where error.status == .notFound:
            return wrongMethod(request.method, path: request.uri.path) ?? .notFound("no route for \(request.uri.path)")
        case let error as MalformedPathID:
            // A HEAD that reached a route is its GET's.
            let method = request.method == .head ? .get : request.method
            return wrongMethod(method, path: request.uri.path) ?? .notFound("no such \(error.what)")
        case let error as HTTPError:
            return APIError(error.status, code: Self.code(for: error.status), message: error.body ?? error.status.reasonPhrase)
        default:
            context.logger.error("unexpected error", metadata: ["error": "\(String(reflecting: error))"])
            return APIError(.internalServerError, code: "internal", message: "internal error")
        }
    }

    /// 405 when the path is routed for other methods only.
    func wrongMethod(_ method: HTTPRequest.Method, path: String) -> APIError? {
        let allowed = routes.allowedMethods(forPath: path)
        guard !allowed.isEmpty, !allowed.contains(method) else { return nil }
        return APIError(
            .methodNotAllowed, code: "method_not_allowed", message: "\(method) is not allowed on this path",
            headers: [.allow: allowed.map(\.rawValue).joined(separator: ", ")])
    }

    static func code(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "invalid_request"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 409: "conflict"
        case 413: "payload_too_large"
        case 415: "unsupported_media_type"
        case 429: "rate_limited"
        case 503: "unavailable"
        case 400..<500: "invalid_request"
        default: "internal"
        }
    }
}
