import NoticeBoardCore
import Testing

/// Lengths are counted as the OpenAPI schema's `minLength`/`maxLength` count them: code points.
@Suite struct SchemaLengthTests {
    static func draft(secret: String) throws(ValidationError) -> WebhookDraft {
        try WebhookDraft(json: .object([
            "url": .string("https://example.org/hook"), "secret": .string(secret),
            "area": .object(["lat": .number(10), "lon": .number(20), "radius": .number(1000)]),
        ]))
    }

    @Test func aSecretOfCombiningMarksIsMeasuredInCodePoints() throws {
        // "é" as e + U+0301: one character on screen, two code points.
        let accent = "e\u{301}"
        #expect(throws: ValidationError.self) { try Self.draft(secret: String(repeating: accent, count: 101)) }  // 202 code points
        #expect(try Self.draft(secret: String(repeating: accent, count: 100)).secret.unicodeScalars.count == 200)
        #expect(try Self.draft(secret: String(repeating: accent, count: 8)).secret.unicodeScalars.count == 16)
        #expect(throws: ValidationError.self) { try Self.draft(secret: String(repeating: "🇫🇷", count: 101)) }  // flags: 2 code points each
    }

    @Test func anIdempotencyKeyIsMeasuredInCodePoints() throws {
        #expect(throws: ValidationError.self) { try IdempotencyRequest.validatedKey(String(repeating: "e\u{301}", count: 101)) }
        #expect(try IdempotencyRequest.validatedKey(String(repeating: "e\u{301}", count: 100)).unicodeScalars.count == 200)
    }
}
