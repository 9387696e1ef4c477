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
}
