import Foundation
import NoticeBoardCore
import Testing

@Suite struct CSVRecordReaderTests {
    static let sample = "id,message\r\n1,\"hello, \"\"world\"\"\nnext line\"\n\n2,plain\r3,\"é\u{1F600}\"\n4,last"

    static func records(_ text: String, chunk: Int) -> [CSVRecordReader.Record] {
        var reader = CSVRecordReader()
        var out: [CSVRecordReader.Record] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            reader.feed(bytes[start..<min(start + chunk, bytes.count)]) { out.append($0) }
            start += chunk
        }
        reader.finish { out.append($0) }
        return out
    }

    @Test func readsQuotesLineBreaksAndLineNumbers() {
        let got = Self.records(Self.sample, chunk: 1 << 20)
        #expect(got.map(\.fields) == [["id", "message"], ["1", "hello, \"world\"\nnext line"], ["2", "plain"], ["3", "é😀"], ["4", "last"]])
        #expect(got.map(\.line) == [1, 2, 5, 6, 7])
    }

    // A chunk may end anywhere: inside a quote pair, a \r\n, or a UTF-8 character.
    @Test(arguments: [1, 2, 3, 5, 7])
    func chunkBoundariesChangeNothing(chunk: Int) {
        #expect(Self.records(Self.sample, chunk: chunk) == Self.records(Self.sample, chunk: 1 << 20))
    }

    /// Random fields (quotes, commas, line breaks, multi-byte text, empties) written as RFC 4180
    /// and read back in random chunks: every field and every record's first line as written.
    @Test func readsBackRandomFieldsInRandomChunks() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "plain", "", "\"", ",", "\n", "\r\n", "é", "😀", " ", "x\"\"y", "1.5"]
        for _ in 0..<300 {
            var written = ""
            var expected: [CSVRecordReader.Record] = []
            var line = 1
            for _ in 0..<Int.random(in: 1...20, using: &generator) {
                let fields = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                    (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
                }
                // A record of one empty field is a blank line, which the reader skips.
                guard fields != [""] else { continue }
                expected.append(.init(line: line, fields: fields.map { $0.replacingOccurrences(of: "\r\n", with: "\n") }))
                let cells = fields.map { field in
                    field.unicodeScalars.contains(where: { "\",\r\n".unicodeScalars.contains($0) }) || field.isEmpty && fields.count == 1
                        ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
                }
                let record = cells.joined(separator: ",")
                written += record + (Bool.random(using: &generator) ? "\n" : "\r\n")
                line += 1 + record.filter { $0 == "\n" || $0 == "\r\n" }.count
            }
            let chunk = Int.random(in: 1...64, using: &generator)
            #expect(Self.records(written, chunk: chunk) == expected, "chunks of \(chunk): \(written.debugDescription)")
        }
    }

    @Test func linesReaderSkipsBlankLinesAndKeepsNumbers() {
        var reader = LineRecordReader()
        var got: [(Int, String)] = []
        for byte in Array("{\"a\":1}\r\n\n  \n{\"b\":2}".utf8) {
            reader.feed([byte]) { got.append(($0, String(decoding: $1, as: UTF8.self))) }
        }
        reader.finish { got.append(($0, String(decoding: $1, as: UTF8.self))) }
        #expect(got.map(\.0) == [1, 4])
        #expect(got.map(\.1) == ["{\"a\":1}", "{\"b\":2}"])
    }
}

@Suite struct ImportedPostTests {
    func row(_ header: [String], _ fields: [String]) throws(ValidationError) -> ImportedPost {
        try ImportedPost(json: try ImportedPost.members(header: try ImportedPost.validatedHeader(header), fields: fields))
    }

    @Test func readsTheOriginalBoardsColumns() throws {
        let post = try row(
            ["pid", "longitude", "latitude", "heading", "msg", "tag", "pdate"],
            ["17", "114.20684", "22.41961", "360", "  Too many things 😢 ", "LifeStyle", "2019-05-12 13:45:12"])
        #expect(post.sourceID == "17")
        #expect(post.draft.lat == 22.41961 && post.draft.lon == 114.20684)
        #expect(post.draft.heading == 0)  // 360° is north
        #expect(post.draft.message == "Too many things 😢")
        #expect(post.draft.tag == "lifestyle")
        #expect(post.createdAt == Timestamp.parseCeilingMilliseconds("2019-05-12T13:45:12Z"))
        #expect(post.status == .visible)
    }

    @Test func keepsCreatedAtTruncatedToTheMillisecond() throws {
        let header = ["lat", "lon", "message", "tag", "created_at"]
        #expect(try row(header, ["1", "2", "m", "t", "2026-11-21T10:00:00.1239Z"]).createdAt == 1_795_255_200_123)
        #expect(try row(header, ["1", "2", "m", "t", "2026-11-21T11:00:00+01:00"]).createdAt == 1_795_255_200_000)
        #expect(try row(header, ["1", "2", "m", "t", "1795255200"]).createdAt == 1_795_255_200_000)
        #expect(try row(header, ["1", "2", "m", "t", "1795255200123"]).createdAt == 1_795_255_200_123)
        #expect(try row(header, ["1", "2", "m", "t", "1795255200.5"]).createdAt == 1_795_255_200_500)
        #expect(try row(header, ["-1.25e1", "2", "m", "t", "1795255200"]).draft.lat == -12.5)
    }

    @Test func rejectsLikeTheAPINamingTheField() {
        let header = ["lat", "lon", "heading", "message", "tag", "createdAt", "floor", "status"]
        let good = ["1", "2", "", "m", "t", "2026-11-21T10:00:00Z", "", ""]
        let cases: [(Int, String, String)] = [
            (0, "91", "lat"), (1, "east", "lon"), (2, "360.5", "heading"), (3, "  ", "message"),
            (4, "a<b", "tag"), (5, "yesterday", "createdAt"), (5, "", "createdAt"), (6, "1.5", "floor"), (7, "deleted", "status"),
            // Only decimals: `Double(_:)` alone would read these as numbers.
            (0, "0x1p4", "lat"), (1, "1e", "lon"), (2, "nan", "heading"), (5, "0x65ABC", "createdAt"),
        ]
        for (index, value, field) in cases {
            var fields = good
            fields[index] = value
            #expect(throws: ValidationError.self) { try row(header, fields) }
            do {
                _ = try row(header, fields)
            } catch {
                #expect(error.field == field, "\(field) = \(value)")
            }
        }
        #expect(throws: ValidationError(field: nil, "has 2 columns where the header has 8")) { try row(header, ["1", "2"]) }
        #expect(throws: ValidationError(field: "tag", "the header has no tag column")) {
            try ImportedPost.validatedHeader(["lat", "lon", "message", "createdAt"])
        }
    }

    @Test func readsWhatExportWrites() throws {
        let json = JSONValue.parse(
            Data(#"{"id":9,"lat":-16.5,"lon":179.99,"heading":null,"message":"m","tag":"food","createdAt":"2026-01-02T03:04:05.678Z","accuracy":5,"floor":3,"beacon":"F7826DA6-4FA2-4E98-8024-BC5B71E0893E:1:2","status":"hidden"}"#.utf8))!
        let post = try ImportedPost(json: json)
        #expect(post.sourceID == "9")
        #expect(post.draft.floor == 3 && post.draft.accuracy == 5)
        #expect(post.draft.beacon == "f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:2")
        #expect(post.status == .hidden)
        #expect(Timestamp.format(milliseconds: post.createdAt) == "2026-01-02T03:04:05.678Z")
    }

    @Test func readsLifetimesAndThreadsAndNamesTheFieldAtFault() throws {
        let base = #""lat":1,"lon":2,"message":"m","tag":"food","createdAt":"2026-01-02T03:04:05.678Z""#
        let post = try ImportedPost(json: JSONValue.parse(Data(
            #"{\#(base),"expiresAt":"2026-01-03T00:00:00Z","replies":[{"message":" hi ","createdAt":"2026-01-02T04:00:00.5Z","status":"hidden"}]}"#.utf8))!)
        #expect(post.expiresAt.map { Timestamp.format(milliseconds: $0) } == "2026-01-03T00:00:00.000Z")
        #expect(post.replies.map(\.message) == ["hi"] && post.replies.map(\.status) == [.hidden])
        #expect(post.replies.map { Timestamp.format(milliseconds: $0.createdAt) } == ["2026-01-02T04:00:00.500Z"])
        for (extra, field) in [
            (#""expiresAt":"soon""#, "expiresAt"), (#""replies":"none""#, "replies"), (#""replies":[1]"#, "replies"),
            (#""replies":[{"message":"x"}]"#, "replies"), (#""replies":[{"message":"","createdAt":"2026-01-02T00:00:00Z"}]"#, "replies"),
            (#""replies":[{"message":"x","createdAt":"2026-01-02T00:00:00Z","status":"deleted"}]"#, "replies"),
        ] {
            #expect(throws: ValidationError.self) { try ImportedPost(json: JSONValue.parse(Data("{\(base),\(extra)}".utf8))!) }
            do {
                _ = try ImportedPost(json: JSONValue.parse(Data("{\(base),\(extra)}".utf8))!)
            } catch {
                #expect(error.field == field, "\(extra)")
            }
        }
    }
}
