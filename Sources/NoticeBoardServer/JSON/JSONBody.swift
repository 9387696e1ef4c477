import Foundation
import Hummingbird
import NIOCore
import NoticeBoardCore

/// Request bodies: `application/json` (any charset parameter) or 415, at most 16 KiB (chunked
/// too) or 413, well-formed or 400 without a field.
enum JSONBody {
    static let maxBytes = 16 * 1024

    /// A place's polygon of 1000 vertices needs about 26 KB: its route takes this much.
    static let placeMaxBytes = 64 * 1024

    static func read(_ request: Request, maxBytes: Int = maxBytes) async throws -> JSONValue {
        guard let json = try await read(request, allowEmpty: false, maxBytes: maxBytes) else { throw APIError.invalid("the body is not valid JSON") }
        return json
    }

    /// As above; with `allowEmpty`, a request without a body gives `nil`.
    static func read(_ request: Request, allowEmpty: Bool, maxBytes: Int = maxBytes) async throws -> JSONValue? {
        if allowEmpty, request.headers[.contentLength] == "0" || (request.headers[.contentLength] == nil && request.headers[.transferEncoding] == nil) {
            return nil
        }
        let mediaType = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/json" else {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", message: "the body must be application/json")
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBytes {
            throw APIError.payloadTooLarge(limit: maxBytes)
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maxBytes)
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge(limit: maxBytes)
        }
        do {
            return try JSONValue.parseStrict(Data(buffer: buffer))
        } catch {
            throw APIError.invalid(error.message, field: error.field)
        }
    }

    /// `{"reason": "..."}`, 1...500 characters; an empty body means no reason where none is required.
    static func reason(of request: Request, required: Bool) async throws -> String? {
        guard let json = try await read(request, allowEmpty: !required) else { return nil }
        guard case .object(let body) = json else { throw APIError.invalid("the body must be a JSON object") }
        switch body["reason"] {
        case nil, .null?:
            if required { throw APIError.invalid("reason is required", field: "reason") }
            return nil
        case .string(let text)?:
            return try TextRules.normalizedText(text, field: "reason", maxScalars: 500)
        default:
            throw APIError.invalid("reason must be a string", field: "reason")
        }
    }
}
