import NoticeBoardCore

/// Moderated posts as CSV with the columns `noticeboard import` reads (RFC 4180: fields with a
/// comma, a quote or a line break are quoted, quotes doubled), so an export can be imported.
enum PostCSV {
    static let header = "id,lat,lon,heading,message,tag,createdAt,accuracy,floor,beacon,status\r\n"

    static func row(_ moderated: ModeratedPost) -> String {
        let post = moderated.post
        let fields: [String] = [
            "\(post.id)", "\(post.lat)", "\(post.lon)", post.heading.map { "\($0)" } ?? "", post.message, post.tag,
            Timestamp.format(milliseconds: post.createdAt), post.accuracy.map { "\($0)" } ?? "", post.floor.map { "\($0)" } ?? "",
            post.beacon ?? "", moderated.status.rawValue,
        ]
        return fields.map(quoted).joined(separator: ",") + "\r\n"
    }

    static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
