import Hummingbird
import NIOCore

/// Serves the `.gz` twin of a static file to clients that accept gzip: Debian's libjs-leaflet
/// ships `leaflet.js.gz` and `leaflet.css.gz`, much smaller, so the map loads faster
/// on a phone without compressing anything per request. Other requests fall through.
struct PrecompressedFilesMiddleware<Context: RequestContext>: RouterMiddleware {
    let files: InMemoryFiles
    let urlPrefix: String

    static func contentType(of path: String) -> String? {
        if path.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        if path.hasSuffix(".css") { return "text/css; charset=utf-8" }
        return nil
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard request.method == .get, path.hasPrefix(urlPrefix + "/"), let type = Self.contentType(of: path),
            AcceptEncoding.takesGzip(request),
            let compressed = files.contents(of: String(path.dropFirst(urlPrefix.count)) + ".gz")
        else { return try await next(request, context) }
        return Response(
            status: .ok,
            headers: [.contentType: type, .contentEncoding: "gzip", .vary: "Accept-Encoding", .cacheControl: "max-age=86400"],
            body: .init(byteBuffer: compressed))
    }
}
