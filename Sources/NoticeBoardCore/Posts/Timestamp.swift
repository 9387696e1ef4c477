import Foundation

/// RFC 3339 timestamps as integer milliseconds since the Unix epoch, without Foundation's
/// formatters: parsing accepts any offset and any fraction, formatting is UTC with milliseconds.
public enum Timestamp {
    /// The clock now, in whole milliseconds.
    public static func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Parses an RFC 3339 date-time and returns the smallest whole millisecond not earlier than
    /// it (the ceiling), so `from <= createdAt` and `createdAt < to` stay exact on integer
    /// milliseconds whatever fraction the caller sent.
    public static func parseCeilingMilliseconds(_ text: String) -> Int64? {
        parse(text, roundingUp: true)
    }

    /// Parses an RFC 3339 date-time and drops sub-millisecond digits, as the store does with
    /// `createdAt` (an imported post keeps its time truncated to the millisecond).
    public static func parseTruncatedMilliseconds(_ text: String) -> Int64? {
        parse(text, roundingUp: false)
    }

    private static func parse(_ text: String, roundingUp: Bool) -> Int64? {
        // Read in place (no array, no sets): an import parses a time for every row.
        var text = text
        return text.withUTF8 { parse($0, roundingUp: roundingUp) }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, roundingUp: Bool) -> Int64? {
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + count)] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += count
            return value
        }
        func expect(_ allowed: UInt8, or other: UInt8? = nil, or third: UInt8? = nil) -> Bool {
            guard index < bytes.count else { return false }
            let byte = bytes[index]
            guard byte == allowed || byte == other || byte == third else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2),
            expect(84, or: 116, or: 32),  // 'T', 't', or a space as RFC 3339 permits
            let hour = digits(2), expect(58), let minute = digits(2), expect(58), let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysInMonth(year: year, month: month)).contains(day),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var milliseconds: Int64 = 0
        var roundUp = false
        if index < bytes.count, bytes[index] == 46 {  // '.'
            index += 1
            var fractionDigits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                let digit = Int64(bytes[index] - 48)
                if fractionDigits < 3 {
                    milliseconds = milliseconds * 10 + digit
                } else if digit != 0 {
                    roundUp = roundingUp
                }
                fractionDigits += 1
                index += 1
            }
            guard fractionDigits > 0 else { return nil }
            for _ in fractionDigits..<max(fractionDigits, 3) { milliseconds *= 10 }
        }
        guard index < bytes.count else { return nil }
        var offsetMinutes = 0
        if bytes[index] == 90 || bytes[index] == 122 {  // 'Z' or 'z'
            index += 1
        } else {
            let sign = bytes[index]
            guard sign == 43 || sign == 45 else { return nil }
            index += 1
            guard let offsetHours = digits(2), expect(58), let offsetMins = digits(2), offsetHours <= 23, offsetMins <= 59
            else { return nil }
            offsetMinutes = (offsetHours * 60 + offsetMins) * (sign == 45 ? -1 : 1)
        }
        guard index == bytes.count else { return nil }
        let days = Int64(daysFromCivil(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return seconds * 1000 + milliseconds + (roundUp ? 1 : 0)
    }

    /// Year, month, day, hour, minute, second and millisecond (UTC) of a time.
    public static func components(milliseconds: Int64) -> (Int, Int, Int, Int, Int, Int, Int) {
        let (days, msOfDay) = floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = civilFromDays(Int(days))
        return (year, month, day, Int(msOfDay / 3_600_000), Int(msOfDay / 60_000 % 60), Int(msOfDay / 1000 % 60), Int(msOfDay % 1000))
    }

    /// `2026-11-21T10:00:00.123Z`.
    public static func format(milliseconds: Int64) -> String {
        let (year, month, day, hour, minute, second, millis) = components(milliseconds: milliseconds)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(millis, 3))Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    static func isLeapYear(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's civil calendar algorithms (proleptic Gregorian).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
