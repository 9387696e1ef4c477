import Foundation
import Hummingbird

/// JSON responses, encoded once with the settings every endpoint shares.
enum JSONResponse {
    static func make(status: HTTPResponse.Status = .ok, _ value: some Encodable, headers: HTTPFields = [:]) -> Response {
        let data = encodeData(value)
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// One line of JSON (for SSE `data:` lines too: JSON escapes every newline).
    static func encode(_ value: some Encodable) -> String {
        String(decoding: encodeData(value), as: UTF8.self)
    }

    static func encodeData(_ value: some Encodable) -> Data {
        if let writable = value as? any JSONWritable {
            var json = JSONWriter()
            writable.writeObject(to: &json)
            return Data(json.bytes)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        // Encoding our own value types cannot fail; an empty object is the safe fallback.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}
