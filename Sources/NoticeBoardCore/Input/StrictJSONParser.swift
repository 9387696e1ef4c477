import Foundation

/// Why a body is not the JSON the API takes, and under which top-level member it went wrong.
public struct JSONParseError: Error, Sendable, Equatable {
    public var message: String
    /// The top-level member whose value is at fault, when there is one.
    public var field: String?
}

/// RFC 8259 JSON, strictly: UTF-8 only (a leading byte-order mark is skipped), no trailing
/// commas, no duplicate member names, no `NaN` or `Infinity`, numbers that fit a double, and
/// at most 64 levels of nesting. As the contract says, malformed JSON names no field, but a
/// value the JSON cannot hold (`NaN`, `Infinity`, `1e400`) or a repeated name names its member.
/// Foundation's decoder accepts some of these, and when it refuses it cannot say which member.
struct StrictJSONParser {
    static let maxDepth = 64
    private let bytes: [UInt8]
    private var index = 0
    private var topLevelMember: String?

    init(_ data: Data) { bytes = Array(data) }

    static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        guard String(validating: data, as: UTF8.self) != nil else {
            throw JSONParseError(message: "the body must be JSON encoded as UTF-8", field: nil)
        }
        var parser = StrictJSONParser(data)
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.failure("unexpected text after the JSON value") }
        return value
    }

    /// Malformed JSON: no field.
    private func failure(_ message: String) -> JSONParseError {
        JSONParseError(message: "the body is not valid JSON: \(message)", field: nil)
    }

    /// A value JSON cannot hold, under the member being read.
    private func unrepresentable(_ message: String) -> JSONParseError {
        JSONParseError(message: topLevelMember.map { "\($0) \(message)" } ?? "the body is not valid JSON: \(message)", field: topLevelMember)
    }

    private func startsWith(_ literal: String) -> Bool {
        let utf8 = Array(literal.utf8)
        return index + utf8.count <= bytes.count && Array(bytes[index..<index + utf8.count]) == utf8
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: String, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        guard startsWith(literal) else { throw failure("not a JSON value") }
        index += literal.utf8.count
        return value
    }

    private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < Self.maxDepth else { throw failure("nested more than \(Self.maxDepth) levels deep") }
        switch current {
        case UInt8(ascii: "{")?: return try object(depth: depth)
        case UInt8(ascii: "[")?: return try array(depth: depth)
        case UInt8(ascii: "\"")?: return .string(try string())
        case UInt8(ascii: "t")?: return try expect("true", .bool(true))
        case UInt8(ascii: "f")?: return try expect("false", .bool(false))
        case UInt8(ascii: "n")?: return try expect("null", .null)
        case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte): return try number()
        case nil: throw failure("the body ends too early")
        default:
            if startsWith("NaN") || startsWith("Infinity") { throw unrepresentable("must be a number (NaN and Infinity are not numbers in JSON)") }
            throw failure("not a JSON value")
        }
    }

    private mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        skipSpace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a member name in quotes (no trailing commas)") }
            let name = try string()
            guard members[name] == nil else {
                throw JSONParseError(message: "\(name) appears twice in the object", field: depth == 0 ? name : topLevelMember)
            }
            skipSpace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':' after a member name") }
            index += 1
            skipSpace()
            if depth == 0 { topLevelMember = name }
            members[name] = try value(depth: depth + 1)
            if depth == 0 { topLevelMember = nil }
            skipSpace()
            switch current {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "}")?:
                index += 1
                return .object(members)
            default: throw failure("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipSpace()
            guard current != UInt8(ascii: "]") else { throw failure("a trailing comma in an array") }
            items.append(try value(depth: depth + 1))
            skipSpace()
            switch current {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "]")?:
                index += 1
                return .array(items)
            default: throw failure("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = index
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        if current == UInt8(ascii: "-") { index += 1 }
        if startsWith("Infinity") { throw unrepresentable("must be a number (Infinity is not a number in JSON)") }
        guard let first = current, isDigit(first) else { throw failure("a malformed number") }
        index += 1
        if first != UInt8(ascii: "0") { while let byte = current, isDigit(byte) { index += 1 } }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let byte = current, isDigit(byte) else { throw failure("a malformed number") }
            while let byte = current, isDigit(byte) { index += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let byte = current, isDigit(byte) else { throw failure("a malformed number") }
            while let byte = current, isDigit(byte) { index += 1 }
        }
        guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else {
            throw unrepresentable("must be a number a double can hold")
        }
        return .number(value)
    }

    private mutating func string() throws(JSONParseError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun(_ end: Int) { scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars) }
        while true {
            guard let byte = current else { throw failure("a string is not closed") }
            switch byte {
            case UInt8(ascii: "\""):
                flushRun(index)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flushRun(index)
                index += 1
                scalars.append(try escape())
                runStart = index
            case 0..<0x20:
                throw failure("control characters in a string must be escaped")
            default:
                index += 1
            }
        }
    }

    private mutating func escape() throws(JSONParseError) -> Unicode.Scalar {
        guard let byte = current else { throw failure("a string is not closed") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hexUnit()
            if (0xD800..<0xDC00).contains(unit) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("a lone surrogate in a \\u escape")
                }
                index += 2
                let low = try hexUnit()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a \\u escape") }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(unit) else { throw failure("a lone surrogate in a \\u escape") }
            return scalar
        default: throw failure("an unknown escape in a string")
        }
    }

    private mutating func hexUnit() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count, let unit = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
            bytes[index..<index + 4].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
        else { throw failure("a \\u escape needs four hexadecimal digits") }
        index += 4
        return unit
    }
}

extension JSONValue {
    /// Parses a body strictly (`StrictJSONParser`); the error names the member at fault.
    public static func parseStrict(_ data: Data) throws(JSONParseError) -> JSONValue {
        try StrictJSONParser.parse(data)
    }
}
