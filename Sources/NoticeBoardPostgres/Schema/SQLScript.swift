/// Splits a SQL script into statements, because the extended query protocol runs one at a time.
/// Semicolons inside quotes, dollar quotes and comments do not split.
public enum SQLScript {
    public static func statements(_ script: String) -> [String] {
        let chars = Array(script)
        var statements: [String] = []
        var current = ""
        var index = 0
        func peek(_ offset: Int) -> Character? { index + offset < chars.count ? chars[index + offset] : nil }
        while index < chars.count {
            let c = chars[index]
            if c == "-", peek(1) == "-" {
                while index < chars.count, chars[index] != "\n" { index += 1 }
                continue
            }
            if c == "/", peek(1) == "*" {
                index += 2
                while index < chars.count, !(chars[index] == "*" && peek(1) == "/") { index += 1 }
                index += 2
                continue
            }
            if c == "'" || c == "\"" {
                current.append(c)
                index += 1
                while index < chars.count {
                    current.append(chars[index])
                    index += 1
                    if chars[index - 1] == c { break }
                }
                continue
            }
            if c == "$", let tagEnd = dollarTagEnd(chars, from: index) {
                let tag = String(chars[index...tagEnd])
                current += tag
                index = tagEnd + 1
                while index < chars.count {
                    if chars[index] == "$", index + tag.count <= chars.count, String(chars[index..<(index + tag.count)]) == tag {
                        current += tag
                        index += tag.count
                        break
                    }
                    current.append(chars[index])
                    index += 1
                }
                continue
            }
            if c == ";" {
                appendTrimmed(current, to: &statements)
                current = ""
                index += 1
                continue
            }
            current.append(c)
            index += 1
        }
        appendTrimmed(current, to: &statements)
        return statements
    }

    private static func appendTrimmed(_ statement: String, to statements: inout [String]) {
        let trimmed = statement.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty { statements.append(trimmed) }
    }

    /// The index of the closing `$` of a dollar-quote tag such as `$$` or `$body$`.
    private static func dollarTagEnd(_ chars: [Character], from start: Int) -> Int? {
        var index = start + 1
        while index < chars.count {
            let c = chars[index]
            if c == "$" { return index }
            guard c.isLetter || c == "_" || (c.isNumber && index > start + 1) else { return nil }
            index += 1
        }
        return nil
    }
}

import Foundation
