import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NoticeBoardServer
import Testing

/// The page and Leaflet come from memory but behave as files on disk: ranges (open-ended ones
/// too), index.html and its redirect, ETag revalidation, links followed, `.gz` twins.
@Suite(.timeLimit(.minutes(5))) struct StaticFilesTests {
    static func withPage(_ body: @Sendable @escaping (any TestClientProtocol, URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("noticeboard-page-\(UUID().uuidString)")
        let outside = directory.appendingPathComponent("outside")
        let page = directory.appendingPathComponent("page")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: page.appendingPathComponent("moderate"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("<!doctype html><title>board</title>".utf8).write(to: page.appendingPathComponent("index.html"))
        try Data("<!doctype html><title>moderate</title>".utf8).write(to: page.appendingPathComponent("moderate/index.html"))
        try Data("export const answer = 42;\n".utf8).write(to: page.appendingPathComponent("app.js"))
        try Data("linked text".utf8).write(to: outside.appendingPathComponent("note.txt"))
        try FileManager.default.createSymbolicLink(at: page.appendingPathComponent("linked"), withDestinationURL: outside)
        try FileManager.default.createSymbolicLink(
            at: page.appendingPathComponent("alias.js"), withDestinationURL: page.appendingPathComponent("app.js"))
        var app = try await TestApp.make()
        app.settings.webDirectory = page.path
        try await app.test { http, _ in try await body(http, page) }
    }

    @Test func rangesAreServedWhateverTheirEnds() async throws {
        try await Self.withPage { http, _ in
            let whole = try await http.get("/app.js")
            #expect(whole.status == .ok)
            let bytes = Array(buffer: whole.body)
            for (range, expected) in [("bytes=0-", bytes[...]), ("bytes=5-", bytes[5...]), ("bytes=0-999999", bytes[...]),
                                      ("bytes=2-4", bytes[2...4]), ("bytes=-3", bytes[0...3])] {
                let part = try await http.execute(uri: "/app.js", method: .get, headers: [.range: range])
                #expect(part.status == .partialContent, "\(range)")
                #expect(Array(buffer: part.body) == Array(expected), "\(range)")
                #expect(part.headers[.contentRange] != nil, "\(range)")
            }
            // The server is still there.
            #expect(try await http.get("/healthz").status == .ok)
        }
    }

    @Test func directoriesFilesAndRevalidation() async throws {
        try await Self.withPage { http, _ in
            #expect(String(buffer: try await http.get("/").body).contains("<title>board</title>"))
            let redirect = try await http.get("/moderate")
            #expect((300..<400).contains(redirect.status.code) && redirect.headers[.location] == "/moderate/")
            #expect(String(buffer: try await http.get("/moderate/").body).contains("<title>moderate</title>"))
            #expect(try await http.get("/app.js/").status == .notFound)
            #expect(try await http.get("/missing.js").status == .notFound)
            #expect(String(buffer: try await http.get("/linked/note.txt").body) == "linked text")
            #expect(String(buffer: try await http.get("/alias.js").body) == "export const answer = 42;\n")
            let first = try await http.get("/app.js")
            #expect(first.headers[.contentType]?.hasPrefix("text/javascript") == true)
            let etag = try #require(first.headers[.eTag])
            #expect(try await http.get("/app.js").headers[.eTag] == etag)
            let again = try await http.execute(uri: "/app.js", method: .get, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
        }
    }

    @Test func leafletGoesGzippedToClientsThatAcceptIt() async throws {
        let leaflet = PageSettings.debianLeaflet
        guard let twin = FileManager.default.contents(atPath: leaflet + "/leaflet.css.gz"),
            let plain = FileManager.default.contents(atPath: leaflet + "/leaflet.css")
        else {
            Issue.record("Debian's libjs-leaflet is not installed at \(leaflet)")
            return
        }
        try await TestApp.make().test { http, _ in
            let gzipped = try await http.execute(uri: "/vendor/leaflet/leaflet.css", method: .get, headers: [.acceptEncoding: "gzip, br"])
            #expect(gzipped.headers[.contentEncoding] == "gzip")
            #expect(Data(buffer: gzipped.body) == twin)
            let identity = try await http.get("/vendor/leaflet/leaflet.css")
            #expect(identity.headers[.contentEncoding] == nil)
            #expect(Data(buffer: identity.body) == plain)
        }
    }
}
