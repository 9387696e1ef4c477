import NoticeBoardCore
import Testing

@Suite struct DecimalTextTests {
    /// Random decimals of every shape the fast path takes or declines, against `Double(_:)` bit for bit.
    @Test func roundsExactlyAsDoubleDoes() {
        var generator = SystemRandomNumberGenerator()
        func digits(_ count: Int) -> String { String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) }) }
        for _ in 0..<200_000 {
            var text = ["", "-", "+"].randomElement(using: &generator)!
            let whole = Int.random(in: 0...12, using: &generator)
            let fraction = Int.random(in: 0...12, using: &generator)
            text += digits(whole)
            if fraction > 0 || Bool.random(using: &generator) { text += "." + digits(fraction) }
            if Int.random(in: 0..<8, using: &generator) == 0 { text += "e" + ["", "-", "+"].randomElement(using: &generator)! + digits(Int.random(in: 1...3, using: &generator)) }
            let expected = Double(text)
            let got = DecimalText.double(text)
            if whole + fraction == 0 {
                #expect(got == nil, "\(text)")
            } else {
                #expect(got?.bitPattern == expected?.bitPattern, "\(text): \(String(describing: got)) against \(String(describing: expected))")
            }
        }
    }

    /// Values a rounding shortcut gets wrong: halfway cases, the 15-digit edge, and negative zero.
    @Test(arguments: ["0.1", "0.3", "2.675", "-0", "-0.0", "999999999999999", "9999999999999999", "0.000000000000001", "123456.789012345", "1.7976931348623157", "90", "-180.000000"])
    func knownCases(_ text: String) {
        #expect(DecimalText.double(text)?.bitPattern == Double(text)?.bitPattern)
    }

    @Test(arguments: ["", "+", "-", ".", "1e", "1e+", "0x10", "nan", "inf", "1\u{0}", " 1", "1 ", "1..2", "--1", "1,5", "١"])
    func rejectsWhatIsNotADecimal(_ text: String) {
        #expect(DecimalText.double(text) == nil)
    }

    @Test func readsSubstrings() {
        let text = "lat=51.5,lon=-0.12"
        #expect(DecimalText.double(text.dropFirst(4).prefix(4)) == 51.5)
    }
}
