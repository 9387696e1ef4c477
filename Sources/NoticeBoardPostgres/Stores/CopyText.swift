import NIOCore
import NoticeBoardCore

/// Rows in `COPY … FROM STDIN` text format.
enum CopyText {
    /// One line: tab-separated, `\N` for null, with backslash, tab, newline and carriage
    /// return escaped.
    static func appendRow(_ columns: [String?], to buffer: inout ByteBuffer) {
        for (index, column) in columns.enumerated() {
            appendText(column, after: index > 0, to: &buffer)
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
    }

    /// A column that cannot hold anything to escape (a number's text), after a tab.
    static func appendUnescaped(_ column: String?, to buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "\t"))
        if let column { buffer.writeString(column) } else { buffer.writeStaticString("\\N") }
    }

    /// One column, after a tab when it follows another.
    static func appendText(_ column: String?, after previous: Bool = false, to buffer: inout ByteBuffer) {
        if previous { buffer.writeInteger(UInt8(ascii: "\t")) }
        guard let column else {
            buffer.writeStaticString("\\N")
            return
        }
        // Most text has nothing to escape: it is written whole, not byte by byte.
        if !column.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
            buffer.writeString(column)
            return
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
}

/// `timestamptz` input text for a time in milliseconds since the epoch, any year PostgreSQL
/// holds: `2024-08-26 03:17:42.123+00`, or `0044-03-15 12:00:00.000+00 BC`.
enum PostgresTimestampText {
    /// Written digit by digit straight into the buffer's memory: this runs for every imported row.
    static func append(milliseconds: Int64, to buffer: inout ByteBuffer) {
        let (year, month, day, hour, minute, second, millis) = Timestamp.components(milliseconds: milliseconds)
        // Year 0 of the proleptic calendar is 1 BC.
        let shownYear = year <= 0 ? 1 - year : year
        var yearWidth = 4
        var higherDigits = shownYear / 10_000
        while higherDigits > 0 {
            yearWidth += 1
            higherDigits /= 10
        }
        // The widest text: a 19-digit year, 25 more characters and " BC".
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 48) { text in
            var count = 0
            func put(_ value: Int, _ width: Int) {
                var rest = value
                for position in stride(from: count + width - 1, through: count, by: -1) {
                    text[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                count += width
            }
            func put(_ character: Unicode.Scalar) {
                text[count] = UInt8(ascii: character)
                count += 1
            }
            put(shownYear, yearWidth); put("-"); put(month, 2); put("-"); put(day, 2)
            put(" "); put(hour, 2); put(":"); put(minute, 2); put(":"); put(second, 2); put("."); put(millis, 3)
            put("+"); put("0"); put("0")
            if year <= 0 { put(" "); put("B"); put("C") }
            return count
        }
    }
}
