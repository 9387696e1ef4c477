import Foundation
import Hummingbird

/// JSON responses, encoded once with the settings every endpoint shares.
enum JSONResponse {
    static func make(status: HTTPResponse.Status = .ok, _ value: some Encodable, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        // The hot path (posts, pages, clusters) goes from the writer's bytes to the buffer in one copy.
        let buffer = (value as? any JSONWritable).map(writtenBuffer) ?? ByteBuffer(bytes: encodeData(value))
        return Response(status: status, headers: fields, body: .init(byteBuffer: buffer))
    }

    /// A JSON document already written: in advance, or post by post (`PostPageJSON`).
    static func make(fixed json: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: json))
    }

    /// One line of JSON (for SSE `data:` lines too: JSON escapes every newline).
    static func encode(_ value: some Encodable) -> String {
        if let writable = value as? any JSONWritable { return String(decoding: written(writable), as: UTF8.self) }
        return String(decoding: encodeData(value), as: UTF8.self)
    }

    private static func written(_ value: any JSONWritable) -> [UInt8] {
        var json = JSONWriter()
        value.writeObject(to: &json)
        return json.bytes
    }

    private static func writtenBuffer(_ value: any JSONWritable) -> ByteBuffer {
        // Room for a full page up front spares the writer's regrowths.
        var json = JSONWriter(capacity: 16_384)
        value.writeObject(to: &json)
        return ByteBuffer(bytes: json.written)
    }

    static func encodeData(_ value: some Encodable) -> Data {
        if let writable = value as? any JSONWritable { return Data(written(writable)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        // Encoding our own value types cannot fail; an empty object is the safe fallback.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}
