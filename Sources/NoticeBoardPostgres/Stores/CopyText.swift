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
    /// Written digit by digit into the buffer: this runs for every imported row.
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
        func put(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                buffer.writeInteger(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        put(shownYear, yearWidth); buffer.writeInteger(UInt8(ascii: "-")); put(month, 2); buffer.writeInteger(UInt8(ascii: "-")); put(day, 2)
        buffer.writeInteger(UInt8(ascii: " ")); put(hour, 2); buffer.writeInteger(UInt8(ascii: ":")); put(minute, 2)
        buffer.writeInteger(UInt8(ascii: ":")); put(second, 2); buffer.writeInteger(UInt8(ascii: ".")); put(millis, 3)
        buffer.writeStaticString("+00")
        if year <= 0 { buffer.writeStaticString(" BC") }
    }
}
