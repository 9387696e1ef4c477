import NIOCore
import NoticeBoardCore

/// Rows in `COPY … FROM STDIN` text format.
enum CopyText {
    /// One line: tab-separated, `\N` for null, with backslash, tab, newline and carriage
    /// return escaped.
    static func appendRow(_ columns: [String?], to buffer: inout ByteBuffer) {
        for (index, column) in columns.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
            guard let column else {
                buffer.writeStaticString("\\N")
                continue
            }
            // Most text has nothing to escape: it is written whole, not byte by byte.
            if !column.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
                buffer.writeString(column)
                continue
            }
            for byte in column.utf8 {
                switch byte {
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                default: buffer.writeInteger(byte)
                }
            }
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }
}

/// `timestamptz` input text for a time in milliseconds since the epoch, any year PostgreSQL
/// holds: `2024-08-26 03:17:42.123+00`, or `0044-03-15 12:00:00.000+00 BC`.
enum PostgresTimestampText {
    static func utc(milliseconds: Int64) -> String {
        let (year, month, day, hour, minute, second, millis) = Timestamp.components(milliseconds: milliseconds)
        // Year 0 of the proleptic calendar is 1 BC.
        let shownYear = year <= 0 ? 1 - year : year
        let yearWidth = max(4, String(shownYear).utf8.count)
        // Written digit by digit: this runs for every imported row.
        return String(unsafeUninitializedCapacity: yearWidth + 28) { text in
            var at = 0
            func put(_ value: Int, _ width: Int) {
                var divisor = 1
                for _ in 1..<width { divisor *= 10 }
                while divisor > 0 {
                    text[at] = UInt8(ascii: "0") + UInt8(value / divisor % 10)
                    at += 1
                    divisor /= 10
                }
            }
            func put(_ characters: StaticString) {
                for index in 0..<characters.utf8CodeUnitCount {
                    text[at] = characters.utf8Start[index]
                    at += 1
                }
            }
            put(shownYear, yearWidth); put("-"); put(month, 2); put("-"); put(day, 2); put(" ")
            put(hour, 2); put(":"); put(minute, 2); put(":"); put(second, 2); put(".")
            put(millis, 3); put("+00")
            if year <= 0 { put(" BC") }
            return at
        }
    }
}
