import CompressNIO
import HTTPTypes
import Hummingbird
import NIOCore

/// The API's JSON and CSV answers gzipped for clients that take gzip: a map's feed of 500 notes
/// shrinks to about a third, which is what a phone on a slow network waits for. zlib's fastest
/// level, because every answer is compressed anew; answers under one packet are left as they are.
enum AnswerCompression {
    static let smallest = 1400
    static let largest = 16 << 20
    static let compressibleTypes = ["application/json", "application/problem+json", "text/csv", "application/x-ndjson"]
    static let algorithm = CompressionAlgorithm.gzip(configuration: .init(compressionLevel: 1))

    static func apply(to response: inout Response, for request: Request) async throws {
        guard response.headers[.contentEncoding] == nil, response.status != .noContent, response.status != .notModified,
            let type = response.headers[.contentType], compressibleTypes.contains(where: { type.hasPrefix($0) }),
            let length = response.body.contentLength, (smallest...largest).contains(length)
        else { return }
        // The same URL answers in two encodings: caches must keep them apart.
        response.headers.append(HTTPField(name: .vary, value: "Accept-Encoding"))
        guard AcceptEncoding.takesGzip(request) else { return }
        let plain = try await collect(response.body)
        var input = plain
        let compressed = try input.compress(with: algorithm)
        if compressed.readableBytes < plain.readableBytes {
            response.headers[.contentEncoding] = "gzip"
            response.body = .init(byteBuffer: compressed)
        } else {
            response.body = .init(byteBuffer: plain)
        }
    }

    /// A body of known length written into one buffer.
    private static func collect(_ body: ResponseBody) async throws -> ByteBuffer {
        let collected = CollectedBytes()
        try await body.write(CollectingWriter(into: collected))
        return collected.buffer
    }
}

private final class CollectedBytes: @unchecked Sendable {
    var buffer = ByteBuffer()
}

private struct CollectingWriter: ResponseBodyWriter {
    let into: CollectedBytes

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        into.buffer.writeBuffer(&buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
