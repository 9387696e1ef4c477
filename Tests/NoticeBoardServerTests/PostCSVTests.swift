import NoticeBoardCore
@testable import NoticeBoardServer
import Testing

/// CSV quoting decided byte by byte: a comma or quote that Swift folds into one character with
/// the combining mark after it is still a separator to a CSV reader.
@Suite struct PostCSVTests {
    @Test(arguments: ["a,\u{301}b", "say \"\u{301}hi\"", "line\n\u{301}two", "plain \u{301}", "", "x\u{200D},y", "中文,\"é\""])
    func everyFieldReadsBackAsWritten(_ field: String) {
        let line = [PostCSV.quoted(field), PostCSV.quoted("next")].joined(separator: ",") + "\r\n"
        var reader = CSVRecordReader()
        var records: [[String]] = []
        reader.feed(Array(line.utf8)) { records.append($0.fields) }
        reader.finish { records.append($0.fields) }
        #expect(records == [[field, "next"]])
    }
}
