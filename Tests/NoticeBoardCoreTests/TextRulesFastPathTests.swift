import Testing

@testable import NoticeBoardCore

/// The ASCII fast paths must give exactly what the scalar-by-scalar rules give, errors included.
@Suite struct TextRulesFastPathTests {
    static let alphabet: [Character] = [
        "a", "Z", "0", " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{7F}", "\u{01}", "-", "_", "#", ".", "é", "\u{A0}", "\u{85}", "😢",
    ]

    func randomText(_ generator: inout some RandomNumberGenerator, maxLength: Int) -> String {
        String((0..<Int.random(in: 0...maxLength, using: &generator)).map { _ in Self.alphabet.randomElement(using: &generator)! })
    }

    func outcome(_ body: () throws(ValidationError) -> String) -> String {
        do { return "ok:" + (try body()) } catch { return "error:\(error.field ?? ""):\(error.message)" }
    }

    @Test func messagesAgreeWithTheFullRules() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let text = randomText(&generator, maxLength: 12)
            for (limit, allowEmpty) in [(2000, false), (5, false), (2000, true)] {
                let fast = outcome { () throws(ValidationError) in
                    try TextRules.normalizedText(text, field: "message", maxScalars: limit, allowEmpty: allowEmpty)
                }
                let full = outcome { () throws(ValidationError) in
                    try TextRules.normalizedTextByScalars(text, field: "message", maxScalars: limit, allowEmpty: allowEmpty)
                }
                #expect(fast == full, "\(text.debugDescription) limit \(limit)")
            }
        }
    }

    @Test func tagsAgreeWithTheFullRules() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let text = randomText(&generator, maxLength: 6)
            let fast = outcome { () throws(ValidationError) in try TextRules.normalizedTag(text) }
            let full = outcome { () throws(ValidationError) in try TextRules.normalizedTagByScalars(text, field: "tag") }
            #expect(fast == full, "\(text.debugDescription)")
        }
        let long = String(repeating: "a", count: 81)
        #expect(outcome { () throws(ValidationError) in try TextRules.normalizedTag(long) }.hasPrefix("error:tag:"))
    }
}
