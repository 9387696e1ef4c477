import Foundation
import Hummingbird
import NoticeBoardCore

/// An error answered with the contract's body:
/// `{"error": {"code": "...", "message": "...", "field": "lat"}}`.
public struct APIError: Error, HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var field: String?
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: String, message: String, field: String? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers
    }

    public static func invalid(_ message: String, field: String? = nil) -> APIError {
        APIError(.badRequest, code: "invalid_request", message: message, field: field)
    }

    public static func notFound(_ message: String = "no such resource") -> APIError {
        APIError(.notFound, code: "not_found", message: message)
    }

    public static func unavailable(_ message: String) -> APIError {
        APIError(.serviceUnavailable, code: "unavailable", message: message)
    }

    public static func payloadTooLarge(limit: Int) -> APIError {
        APIError(.contentTooLarge, code: "payload_too_large", message: "the body must be at most \(limit) bytes")
    }

    public static func rateLimited(retryAfterSeconds: Int) -> APIError {
        APIError(
            .tooManyRequests, code: "rate_limited", message: "too many requests; retry in \(retryAfterSeconds) s",
            headers: [.retryAfter: String(retryAfterSeconds)])
    }

    init(_ error: ValidationError) {
        self = .invalid(error.field.map { "\($0) \(error.message)" } ?? error.message, field: error.field)
    }

    /// `{"error": {...}}`, for the response and for `MalformedRequestResponder`, which answers
    /// below the router.
    var body: [String: [String: String]] {
        var error: [String: String] = ["code": code, "message": message]
        if let field { error["field"] = field }
        return ["error": error]
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONResponse.make(status: status, body)
        response.headers.append(contentsOf: headers)
        return response
    }
}
