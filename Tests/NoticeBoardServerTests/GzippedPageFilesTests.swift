import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NoticeBoardServer
import Testing

/// The page's own files are sent gzipped to clients that accept it: the same bytes once
/// inflated, a strong ETag of their own that revalidates to 304, identity for everyone else,
/// and nothing compressed that would not shrink.
@Suite(.timeLimit(.minutes(5))) struct GzippedPageFilesTests {
    @Test func thePageIsGzippedForThoseWhoTakeIt() async throws {
        let page = FileManager.default.temporaryDirectory.appendingPathComponent("noticeboard-gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: page, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: page) }
        let script = String(repeating: "export const greeting = \"hello, board\";\n", count: 200)
        try Data(script.utf8).write(to: page.appendingPathComponent("app.js"))
        try Data(("<!doctype html><title>board</title>" + String(repeating: "<p>note</p>", count: 100)).utf8)
            .write(to: page.appendingPathComponent("index.html"))
        try Data("x = 1".utf8).write(to: page.appendingPathComponent("tiny.js"))
        var app = try await TestApp.make()
        app.settings.webDirectory = page.path
        try await app.test { http, _ in
            let gzip: HTTPFields = [.acceptEncoding: "gzip, deflate, br"]
            let zipped = try await http.execute(uri: "/app.js", method: .get, headers: gzip)
            #expect(zipped.status == .ok && zipped.headers[.contentEncoding] == "gzip" && zipped.headers[.vary] == "Accept-Encoding")
            #expect(zipped.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(zipped.body.readableBytes < script.utf8.count / 5, "\(zipped.body.readableBytes) bytes for \(script.utf8.count)")
            var body = zipped.body
            let inflated = try body.decompress(with: .gzip())
            #expect(String(buffer: inflated) == script)
            // Revalidation by its own ETag.
            let etag = try #require(zipped.headers[.eTag])
            var conditional = gzip
            conditional[.ifNoneMatch] = etag
            #expect(try await http.execute(uri: "/app.js", method: .get, headers: conditional).status == .notModified)
            // The page itself at `/`, and identity for clients that do not take gzip.
            #expect(try await http.execute(uri: "/", method: .get, headers: gzip).headers[.contentEncoding] == "gzip")
            for refusing: HTTPFields in [[:], [.acceptEncoding: "identity"], [.acceptEncoding: "gzip;q=0"]] {
                let plain = try await http.execute(uri: "/app.js", method: .get, headers: refusing)
                #expect(plain.headers[.contentEncoding] == nil && String(buffer: plain.body) == script, "\(refusing)")
            }
            // A file gzip would not shrink is sent as it is.
            #expect(try await http.execute(uri: "/tiny.js", method: .get, headers: gzip).headers[.contentEncoding] == nil)
            // The API is not touched.
            #expect(try await http.execute(uri: "/healthz", method: .get, headers: gzip).headers[.contentEncoding] == nil)
        }
    }
}
