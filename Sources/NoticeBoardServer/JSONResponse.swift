import Foundation
import Hummingbird

/// JSON responses, encoded once with the settings every endpoint shares.
enum JSONResponse {
    static func make(status: HTTPResponse.Status = .ok, _ value: some Encodable, headers: HTTPFields = [:]) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // Encoding our own value types cannot fail; an empty object is the safe fallback.
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
