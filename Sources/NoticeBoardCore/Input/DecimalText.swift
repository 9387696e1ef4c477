/// Decimal numbers as people write them (`-12.5`, `1e3`), nothing else: `Double(_:)` alone also
/// takes hexadecimal, `nan`, `inf`, and stops at a NUL byte (`1%00garbage` read as 1).
public enum DecimalText {
    /// The number `text` spells, rounded as `Double(_:)` rounds it; nil when it is not a decimal.
    public static func double(_ text: some StringProtocol) -> Double? {
        let parsed = text.utf8.withContiguousStorageIfAvailable { parse($0) } ?? parse(Array(text.utf8))
        switch parsed {
        case .exact(let value): return value
        case .decimal: return Double(String(text))
        case .invalid: return nil
        }
    }

    private enum Parsed {
        /// Computed here, exactly as `strtod` would round it.
        case exact(Double)
        /// Well-formed, but left to `strtod` (an exponent, or more digits than a double holds exactly).
        case decimal
        case invalid
    }

    private static func parse(_ bytes: some Collection<UInt8>) -> Parsed {
        var index = bytes.startIndex
        var negative = false
        if index != bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            negative = bytes[index] == UInt8(ascii: "-")
            bytes.formIndex(after: &index)
        }
        var mantissa: UInt64 = 0
        var digits = 0
        func readDigits() -> Int {
            var count = 0
            while index != bytes.endIndex, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                if digits < 19 { mantissa = mantissa * 10 + UInt64(bytes[index] - UInt8(ascii: "0")) }
                digits += 1
                count += 1
                bytes.formIndex(after: &index)
            }
            return count
        }
        let wholeDigits = readDigits()
        var fractionDigits = 0
        if index != bytes.endIndex, bytes[index] == UInt8(ascii: ".") {
            bytes.formIndex(after: &index)
            fractionDigits = readDigits()
        }
        guard wholeDigits > 0 || fractionDigits > 0 else { return .invalid }
        var hasExponent = false
        if index != bytes.endIndex, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            hasExponent = true
            bytes.formIndex(after: &index)
            if index != bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                bytes.formIndex(after: &index)
            }
            let exponentStart = index
            while index != bytes.endIndex, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                bytes.formIndex(after: &index)
            }
            guard index != exponentStart else { return .invalid }
        }
        guard index == bytes.endIndex else { return .invalid }
        // Clinger's fast path: at most 15 digits make an integer a double holds exactly, and so
        // is 10^k for k ≤ 22; one IEEE division of the two is then the correctly rounded value.
        guard !hasExponent, digits <= 15 else { return .decimal }
        let value = Double(mantissa) / powersOfTen[fractionDigits]
        return .exact(negative ? -value : value)
    }

    private static let powersOfTen: [Double] = (0...15).map { exponent in
        (0..<exponent).reduce(1.0) { product, _ in product * 10 }
    }
}
