/// The contract's rules for message and tag text.
public enum TextRules {
    public static let maxMessageScalars = 2000
    public static let maxTagScalars = 80
    public static let suggestedTags = ["food", "fashion", "lifestyle", "entertainment"]

    /// Trims Unicode whitespace, stores `\r\n` as `\n`, rejects other control characters than
    /// `\n` and `\t`, and checks the length in Unicode scalars. No normalisation.
    public static func normalizedMessage(_ raw: String, field: String = "message") throws(ValidationError) -> String {
        try normalizedText(raw, field: field, maxScalars: maxMessageScalars)
    }

    /// The message rules for any free text a person types (a report or moderation reason, a
    /// beacon's name): trimmed, `\r\n` as `\n`, no other control characters (PostgreSQL
    /// cannot even store NUL), at most `maxScalars` scalars, empty only when `allowEmpty`.
    public static func normalizedText(
        _ raw: String, field: String, maxScalars: Int, allowEmpty: Bool = false
    ) throws(ValidationError) -> String {
        if let plain = plainASCIIText(raw, maxScalars: maxScalars, allowEmpty: allowEmpty) { return plain }
        return try normalizedTextByScalars(raw, field: field, maxScalars: maxScalars, allowEmpty: allowEmpty)
    }

    static func normalizedTextByScalars(
        _ raw: String, field: String, maxScalars: Int, allowEmpty: Bool
    ) throws(ValidationError) -> String {
        let scalars = trimmed(Array(raw.unicodeScalars))
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\r", index + 1 < scalars.count, scalars[index + 1] == "\n" {
                index += 1
                continue
            }
            if isControl(scalar), scalar != "\n", scalar != "\t" {
                throw ValidationError(field: field, "must not contain control characters other than newline and tab")
            }
            out.append(scalar)
            index += 1
        }
        guard allowEmpty || !out.isEmpty else { throw ValidationError(field: field, "must not be empty") }
        guard out.count <= maxScalars else { throw ValidationError(field: field, "must be at most \(maxScalars) characters") }
        return String(out)
    }

    /// Trims, lower-cases (Unicode-aware), then requires 1...80 scalars of letters (with their
    /// combining marks), decimal digits of any script, space, `-` and `_`.
    public static func normalizedTag(_ raw: String, field: String = "tag") throws(ValidationError) -> String {
        if let plain = plainASCIITag(raw) { return plain }
        return try normalizedTagByScalars(raw, field: field)
    }

    static func normalizedTagByScalars(_ raw: String, field: String) throws(ValidationError) -> String {
        let tag = String(String.UnicodeScalarView(trimmed(Array(raw.unicodeScalars)))).lowercased()
        let count = tag.unicodeScalars.count
        guard count >= 1 else { throw ValidationError(field: field, "must not be empty") }
        guard count <= maxTagScalars else { throw ValidationError(field: field, "must be at most \(maxTagScalars) characters") }
        for scalar in tag.unicodeScalars where !isTagScalar(scalar) {
            throw ValidationError(field: field, "may contain only letters, digits, space, '-' and '_'")
        }
        return tag
    }

    static func isTagScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == " " || scalar == "-" || scalar == "_" { return true }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber:
            return true
        default:
            return false
        }
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }

    static func trimmed(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var start = 0, end = scalars.count
        while start < end, scalars[start].properties.isWhitespace { start += 1 }
        while end > start, scalars[end - 1].properties.isWhitespace { end -= 1 }
        return Array(scalars[start..<end])
    }

    /// Most text is ASCII that needs no change: it is accepted as it is, without a look at
    /// Unicode properties. Anything else (or anything to reject) takes the full path.
    static func plainASCIIText(_ raw: String, maxScalars: Int, allowEmpty: Bool) -> String? {
        let utf8 = raw.utf8
        guard let first = utf8.first, let last = utf8.last else { return allowEmpty ? raw : nil }
        guard utf8.count <= maxScalars, !isASCIIWhitespace(first), !isASCIIWhitespace(last) else { return nil }
        for byte in utf8 where byte >= 0x7F || (byte < 0x20 && byte != 0x0A && byte != 0x09) { return nil }
        return raw
    }

    /// An ASCII tag of letters, digits, space, `-` and `_`, not starting or ending with a
    /// space, lower-cased; nil for anything else, which takes the full path.
    static func plainASCIITag(_ raw: String) -> String? {
        guard !raw.isEmpty, raw.utf8.count <= maxTagScalars else { return nil }
        var needsLowering = false
        for byte in raw.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: " "):
                continue
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                needsLowering = true
            default:
                return nil
            }
        }
        guard raw.utf8.first != UInt8(ascii: " "), raw.utf8.last != UInt8(ascii: " ") else { return nil }
        return needsLowering ? raw.lowercased() : raw
    }

    static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }
}
