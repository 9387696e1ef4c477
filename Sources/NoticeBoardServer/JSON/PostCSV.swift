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

    /// Works on bytes, not characters: a comma or quote followed by a combining mark is one
    /// Swift character, yet the importer (and every CSV reader) splits on the byte.
    static func quoted(_ field: String) -> String {
        let quote = UInt8(ascii: "\""), special: Set<UInt8> = [UInt8(ascii: ","), quote, UInt8(ascii: "\n"), UInt8(ascii: "\r")]
        guard field.utf8.contains(where: special.contains) else { return field }
        var bytes: [UInt8] = [quote]
        bytes.reserveCapacity(field.utf8.count + 8)
        for byte in field.utf8 {
            bytes.append(byte)
            if byte == quote { bytes.append(quote) }
        }
        bytes.append(quote)
        return String(decoding: bytes, as: UTF8.self)
    }
}
