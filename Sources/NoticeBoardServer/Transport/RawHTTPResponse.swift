import HTTPTypes
import NIOCore

/// A whole HTTP/1.1 response as bytes, for handlers that answer before (or without) the HTTP
/// codec: the contract's JSON error, then the connection closes.
enum RawHTTPResponse {
    static func closing(_ error: APIError) -> ByteBuffer {
        let body = JSONResponse.encode(error.body)
        var fields: HTTPFields = [
            .contentType: "application/json; charset=utf-8", .contentLength: String(body.utf8.count), .connection: "close",
            .xContentTypeOptions: "nosniff",
        ]
        fields.append(contentsOf: error.headers)
        var text = "HTTP/1.1 \(error.status.code) \(error.status.reasonPhrase)\r\n"
        for field in fields { text += "\(field.name.rawName): \(field.value)\r\n" }
        text += "\r\n" + body
        return ByteBuffer(string: text)
    }
}
