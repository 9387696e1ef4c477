import Foundation
import GeoIndex

/// Decoded URL query parameters, in order, with the typed readers every endpoint shares.
/// Each failure is a `ValidationError` naming the parameter.
public struct QueryParameters: Sendable {
    public var pairs: [(name: String, value: String)]

    public init(_ pairs: [(name: String, value: String)]) { self.pairs = pairs }

    public func first(_ name: String) -> String? { pairs.first { $0.name == name }?.value }

    public func all(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

    public func number(_ name: String, in range: ClosedRange<Double>) throws(ValidationError) -> Double? {
        guard let text = first(name) else { return nil }
        guard let value = DecimalText.double(text), value.isFinite else { throw ValidationError(field: name, "must be a number") }
        guard range.contains(value) else {
            throw ValidationError(field: name, "must be between \(range.lowerBound.clean) and \(range.upperBound.clean)")
        }
        return value
    }

    /// An angle in `[0, 360)`.
    public func angle(_ name: String) throws(ValidationError) -> Double? {
        guard let value = try number(name, in: 0...360) else { return nil }
        guard value < 360 else { throw ValidationError(field: name, "must be at least 0 and less than 360") }
        return value
    }

    public func integer(_ name: String, in range: ClosedRange<Int>) throws(ValidationError) -> Int? {
        guard let text = first(name) else { return nil }
        guard let value = Int(text) else { throw ValidationError(field: name, "must be an integer") }
        guard range.contains(value) else {
            throw ValidationError(field: name, "must be between \(range.lowerBound) and \(range.upperBound)")
        }
        return value
    }

    /// `from` (inclusive) and `to` (exclusive) as integer milliseconds.
    public func timeRange() throws(ValidationError) -> (from: Int64?, to: Int64?) {
        (try timestamp("from"), try timestamp("to"))
    }

    func timestamp(_ name: String) throws(ValidationError) -> Int64? {
        guard let text = first(name) else { return nil }
        guard let value = Timestamp.parseCeilingMilliseconds(text) else {
            throw ValidationError(field: name, "must be an RFC 3339 timestamp such as 2026-11-21T10:00:00.123Z")
        }
        return value
    }

    /// `place=slug`, checked for form only (the board says whether such a place exists).
    public func place() throws(ValidationError) -> String? {
        try first("place").map { slug throws(ValidationError) in try Place.validatedSlug(slug, field: "place") }
    }

    /// Every `tag`, normalised like a post's tag.
    public func tags() throws(ValidationError) -> [String] {
        var tags: [String] = []
        for raw in all("tag") { tags.append(try TextRules.normalizedTag(raw)) }
        return tags
    }

    /// `bbox=W,S,E,N`; `nil` when absent (the whole world).
    public func box(_ name: String = "bbox") throws(ValidationError) -> GeoBox? {
        guard let text = first(name) else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let values = parts.compactMap { DecimalText.double($0.trimmingSpaces) }.filter(\.isFinite)
        guard parts.count == 4, values.count == 4 else {
            throw ValidationError(field: name, "must be four numbers west,south,east,north")
        }
        let box = GeoBox(west: values[0], south: values[1], east: values[2], north: values[3])
        guard (-180...180).contains(box.west), (-180...180).contains(box.east) else {
            throw ValidationError(field: name, "longitudes must be between -180 and 180")
        }
        guard (-90...90).contains(box.south), (-90...90).contains(box.north) else {
            throw ValidationError(field: name, "latitudes must be between -90 and 90")
        }
        guard box.south <= box.north else { throw ValidationError(field: name, "south must not be greater than north") }
        return box
    }

    public func limit() throws(ValidationError) -> Int {
        try integer("limit", in: 1...500) ?? 50
    }

    /// `clientId` in moderation filters: any pseudonym text (an unknown one matches nothing),
    /// but no control characters, which PostgreSQL's text cannot hold.
    public func clientId() throws(ValidationError) -> String? {
        guard let text = first("clientId") else { return nil }
        guard text.unicodeScalars.count <= 200, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ValidationError(field: "clientId", "must be a client pseudonym, without control characters")
        }
        return text
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}

extension QueryParameters {
    /// Parses a raw URL query (`a=1&b=x+y`) as a form: `+` is a space, then percent-decoding.
    /// A malformed escape is kept as written, so it fails the parameter's own validation.
    public init(urlQuery: String?) {
        var pairs: [(name: String, value: String)] = []
        for item in (urlQuery ?? "").split(separator: "&") where !item.isEmpty {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            pairs.append((Self.formDecoded(parts[0]), parts.count > 1 ? Self.formDecoded(parts[1]) : ""))
        }
        self.init(pairs)
    }

    static func formDecoded(_ text: Substring) -> String {
        // Most values (numbers, plain tags) need no decoding: skip Foundation's slow path.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return String(text) }
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
