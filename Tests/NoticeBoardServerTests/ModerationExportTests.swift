import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NoticeBoardCore
import Testing

/// `GET /api/v1/moderation/posts.csv`: the filtered list as CSV that `noticeboard import` reads back.
@Suite(.timeLimit(.minutes(5))) struct ModerationExportTests {
    @Test func theFilteredListExportsAsImportableCSV() async throws {
        try await ModerationTests.app().test { http, _ in
            let token = try await PlaceTests.token(http)
            let tricky = #"Soup, \"hot\"\nand bread"#
            var ids: [Int64] = []
            for (message, tag) in [(tricky, "food"), ("plain", "food"), ("scarf", "fashion"), ("hidden one", "food")] {
                let created = try await http.postJSON(postJSON(lat: 22.4, lon: 114.2, message: message, tag: tag, extra: #", "floor": 2"#))
                ids.append(try created.decoded(PostBody.self).id)
            }
            let hide = try await http.execute(uri: "/api/v1/moderation/posts/\(ids[3])/hide", method: .post, headers: ModerationTests.bearer(token),
                                              body: ByteBuffer(string: #"{"reason": "spam"}"#))
            #expect(hide.status == .ok)
            let deleted = try await http.postJSON(postJSON(lat: 22.4, lon: 114.2, message: "to be deleted", tag: "food")).decoded(PostBody.self).id
            #expect(try await http.execute(uri: "/api/v1/moderation/posts/\(deleted)", method: .delete, headers: ModerationTests.bearer(token),
                                           body: ByteBuffer(string: #"{"reason": "abuse"}"#)).status == .noContent)
            #expect(try await http.get("/api/v1/moderation/posts.csv").status == .unauthorized)
            let response = try await http.execute(uri: "/api/v1/moderation/posts.csv?tag=food", method: .get, headers: ModerationTests.bearer(token))
            #expect(response.status == .ok && response.headers[.contentType] == "text/csv; charset=utf-8")
            var reader = CSVRecordReader()
            var records: [[String]] = []
            reader.feed(Array(String(buffer: response.body).utf8)) { records.append($0.fields) }
            reader.finish { records.append($0.fields) }
            let header = try #require(records.first)
            #expect(header == ["id", "lat", "lon", "heading", "message", "tag", "createdAt", "accuracy", "floor", "beacon", "status"])
            let imported = try records.dropFirst().map { try ImportedPost(json: try ImportedPost.members(header: header, fields: $0)) }
            // Newest first, as the list: the hidden one, then the plain one, then the tricky one; the deleted one has no text to import.
            #expect(imported.map(\.draft.message) == ["hidden one", "plain", "Soup, \"hot\"\nand bread"])
            #expect(imported.map(\.status) == [.hidden, .visible, .visible])
            #expect(imported.allSatisfy { $0.draft.lat == 22.4 && $0.draft.lon == 114.2 && $0.draft.floor == 2 && $0.draft.tag == "food" })
            #expect(imported.map(\.sourceID) == [ids[3], ids[1], ids[0]].map { "\($0)" })
            let visibleOnly = try await http.execute(uri: "/api/v1/moderation/posts.csv?tag=food&status=visible", method: .get,
                                                     headers: ModerationTests.bearer(token))
            var visibleReader = CSVRecordReader()
            var visibleRows: [[String]] = []
            visibleReader.feed(Array(String(buffer: visibleOnly.body).utf8)) { visibleRows.append($0.fields) }
            visibleReader.finish { visibleRows.append($0.fields) }
            #expect(visibleRows.dropFirst().map { $0[4] } == ["plain", "Soup, \"hot\"\nand bread"])
            let bad = try await http.execute(uri: "/api/v1/moderation/posts.csv?status=gone", method: .get, headers: ModerationTests.bearer(token))
            #expect(try bad.status == .badRequest && bad.decoded(ErrorBody.self).error.field == "status")
        }
    }
}
