import CompressNIO
import Crypto
import Hummingbird
import NIOCore

/// The page's own text files (HTML, JS, CSS, SVG, JSON, the manifest) gzipped once at start (at
/// zlib's best level, as it is done once) and served to clients that accept gzip, with a strong
/// ETag of their own so a revalidation is a 304: a phone's first visit carries a third of the
/// bytes. Other requests, and files gzip does not shrink, fall through to the plain files.
struct GzippedPageFiles<Context: RequestContext>: RouterMiddleware {
    struct Twin: Sendable {
        var bytes: ByteBuffer
        var contentType: String
        var etag: String
    }

    static var compressible: [String: String] {
        [
            ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
            ".svg": "image/svg+xml", ".json": "application/json", ".webmanifest": "application/manifest+json",
        ]
    }

    /// Keyed by request path; `/` and a folder's `/` stand for its `index.html`.
    let twins: [String: Twin]

    init(files: InMemoryFiles) {
        var twins: [String: Twin] = [:]
        for path in files.paths {
            // Compressing reads the buffer: its size is taken first.
            guard let type = Self.compressible.first(where: { path.hasSuffix($0.key) })?.value, var plain = files.contents(of: path)
            else { continue }
            let size = plain.readableBytes
            guard size > 256, let gzipped = try? plain.compress(with: .gzip(configuration: .init(compressionLevel: 9))), gzipped.readableBytes < size else { continue }
            let digest = SHA256.hash(data: Array(buffer: gzipped)).prefix(12).map { String(format: "%02x", $0) }.joined()
            let twin = Twin(bytes: gzipped, contentType: type, etag: "\"gz-\(digest)\"")
            twins[path] = twin
            if path.hasSuffix("/index.html") { twins[String(path.dropLast("index.html".count))] = twin }
        }
        self.twins = twins
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head, let twin = twins[request.uri.path],
            AcceptEncoding.takesGzip(request), request.headers[.range] == nil
        else { return try await next(request, context) }
        var headers: HTTPFields = [
            .contentType: twin.contentType, .contentEncoding: "gzip", .vary: "Accept-Encoding", .eTag: twin.etag, .cacheControl: "no-cache",
        ]
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == twin.etag }) == true {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(twin.bytes.readableBytes)
        return Response(status: .ok, headers: headers, body: request.method == .head ? .init() : .init(byteBuffer: twin.bytes))
    }
}
