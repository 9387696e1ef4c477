import NoticeBoardCore

/// Writes JSON straight into bytes, each member once in a fixed order, for the responses that
/// carry many posts or clusters (nearby, browse, clusters, streams), so that they build and sort
/// no dictionaries the way Foundation's JSONEncoder does.
struct JSONWriter: ~Copyable {
    // A pointer of our own, so that an append pays for no array's uniqueness and capacity checks.
    private var start: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int = 1024) {
        self.capacity = max(capacity, 64)
        start = .allocate(capacity: self.capacity)
    }

    deinit { start.deallocate() }

    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }
    /// Bytes written so far: where the next one goes.
    var offset: Int { count }
    var bytes: [UInt8] { Array(written) }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(toHold: count + extra) }
    }

    private mutating func grow(toHold needed: Int) {
        let larger = max(capacity * 2, needed)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: start, count: count)
        start.deallocate()
        (start, capacity) = (moved, larger)
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    private mutating func append(_ run: UnsafeBufferPointer<UInt8>) {
        guard let source = run.baseAddress, run.count > 0 else { return }
        reserve(run.count)
        (start + count).initialize(from: source, count: run.count)
        count += run.count
    }

    mutating func raw(_ text: StaticString) {
        // A one-scalar literal may be held as a scalar rather than as bytes.
        guard text.hasPointerRepresentation else { return text.withUTF8Buffer { append($0) } }
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Text that is JSON already (a value another encoder wrote), as it is.
    mutating func text(_ json: String) {
        var json = json
        json.withUTF8 { append($0) }
    }

    /// A JSON string: quotes, backslashes and control characters escaped; other text as UTF-8.
    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { string(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// A JSON string from UTF-8 bytes (the board's message bytes, read in place).
    mutating func string(utf8: UnsafeRawBufferPointer) {
        let bytes = utf8.assumingMemoryBound(to: UInt8.self)
        // The quotes and the text, escapes aside, in one reservation.
        reserve(bytes.count + 2)
        start[count] = UInt8(ascii: "\"")
        count += 1
        // Most text needs no escape: copy it in runs, stopping only at the bytes that do.
        var runStart = 0
        for index in bytes.indices {
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            append(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            escape(byte)
            runStart = index + 1
        }
        append(UnsafeBufferPointer(rebasing: bytes[runStart...]))
        append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): raw("\\\"")
        case UInt8(ascii: "\\"): raw("\\\\")
        case UInt8(ascii: "\n"): raw("\\n")
        case UInt8(ascii: "\r"): raw("\\r")
        case UInt8(ascii: "\t"): raw("\\t")
        default:
            raw("\\u00")
            append(Self.hexDigit(byte >> 4))
            append(Self.hexDigit(byte & 0xF))
        }
    }

    /// The shortest text that reads back as the same double, exactly as Swift's `description`
    /// writes it. Coordinates and headings are stored in whole 1e-7°, so they are written digit
    /// by digit; any other value (a distance, a bearing) is written by the standard library's
    /// own printer straight into the buffer, without the `String` that `description` allocates.
    mutating func number(_ value: Double) {
        guard value.isFinite else { return raw("null") }  // never stored; JSON has no NaN
        guard let units = Self.tenMillionths(value) else {
            reserve(ShortestDigits.capacity)
            var digits = ShortestDigits(start + count)
            value.write(to: &digits)
            count += digits.count
            return
        }
        if value.sign == .minus { append(UInt8(ascii: "-")) }
        digits(of: units / 10_000_000)
        append(UInt8(ascii: "."))
        var fraction = units % 10_000_000
        var width = 7
        while width > 1 && fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        digits(Int(fraction), width)
    }

    /// The value's magnitude in whole ten-millionths when the decimal with seven places reads
    /// back as exactly this double and `description` would write it without an exponent: then
    /// that decimal, its trailing zeros dropped, is the shortest text for it (two such decimals
    /// are at least 1e-7 apart, far more than a double's spacing below 10^8).
    static func tenMillionths(_ value: Double) -> UInt64? {
        let magnitude = value.magnitude
        guard magnitude == 0 || (magnitude >= 0.001 && magnitude < 100_000_000) else { return nil }
        let scaled = (magnitude * 10_000_000).rounded()
        guard scaled / 10_000_000 == magnitude else { return nil }
        return UInt64(scaled)
    }

    mutating func number(_ value: some BinaryInteger) {
        if let small = Int64(exactly: value) { return number(small) }
        var text = String(value)
        text.withUTF8 { append($0) }
    }

    /// Digit by digit: `String(value)` allocates for every id and count on a page.
    mutating func number(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        digits(of: value.magnitude)
    }

    private mutating func digits(of value: UInt64) {
        var rest = value
        var reversed: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 20 digits, last first
        var digitCount = 0
        reserve(20)
        withUnsafeMutableBytes(of: &reversed) { digits in
            repeat {
                digits[digitCount] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                digitCount += 1
            } while rest > 0
            for position in stride(from: digitCount - 1, through: 0, by: -1) {
                start[count] = digits[position]
                count += 1
            }
        }
    }

    /// `"2026-11-21T10:00:00.123Z"`, digit by digit (`Timestamp.format` builds strings).
    mutating func timestamp(milliseconds: Int64) {
        let (year, month, day, hour, minute, second, millisecond) = Timestamp.components(milliseconds: milliseconds)
        guard (0...9999).contains(year) else { return string(Timestamp.format(milliseconds: milliseconds)) }
        append(UInt8(ascii: "\""))
        digits(year, 4)
        digits(month, 2, after: "-")
        digits(day, 2, after: "-")
        digits(hour, 2, after: "T")
        digits(minute, 2, after: ":")
        digits(second, 2, after: ":")
        digits(millisecond, 3, after: ".")
        raw("Z\"")
    }

    /// A separator, then the value zero-padded to `width` digits.
    private mutating func digits(_ value: Int, _ width: Int, after separator: Unicode.Scalar) {
        append(UInt8(ascii: separator))
        digits(value, width)
    }

    private mutating func digits(_ value: Int, _ width: Int) {
        reserve(width)
        var rest = value
        for position in stride(from: width - 1, through: 0, by: -1) {
            start[count + position] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        count += width
    }

    mutating func optional<Value>(_ value: Value?, _ write: (inout JSONWriter, Value) -> Void) {
        if let value { write(&self, value) } else { raw("null") }
    }

    /// `"name":` — names are our own ASCII identifiers.
    mutating func key(_ name: StaticString, first: Bool = false) {
        guard name.hasPointerRepresentation else {
            if !first { append(UInt8(ascii: ",")) }
            append(UInt8(ascii: "\""))
            raw(name)
            return raw("\":")
        }
        reserve(name.utf8CodeUnitCount + 4)
        if !first {
            start[count] = UInt8(ascii: ",")
            count += 1
        }
        start[count] = UInt8(ascii: "\"")
        (start + count + 1).initialize(from: name.utf8Start, count: name.utf8CodeUnitCount)
        count += name.utf8CodeUnitCount + 1
        start[count] = UInt8(ascii: "\"")
        start[count + 1] = UInt8(ascii: ":")
        count += 2
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

/// Where `Double.write(to:)` puts a finite value's shortest digits: the standard library hands
/// finite doubles to `_writeASCII` as bytes (the same text as `description`), so they go straight
/// into the writer's reserved room; `write(_:)` is the protocol's general path.
private struct ShortestDigits: TextOutputStream {
    /// Swift's longest double text, "-2.2250738585072014e-308", is 24 bytes.
    static let capacity = 32
    let base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    init(_ base: UnsafeMutablePointer<UInt8>) { self.base = base }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        let length = min(buffer.count, Self.capacity - count)
        guard let source = buffer.baseAddress, length > 0 else { return }
        (base + count).initialize(from: source, count: length)
        count += length
    }

    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { _writeASCII($0) }
    }
}

/// A value that writes itself with `JSONWriter`; `JSONResponse` prefers this to `Encodable`.
protocol JSONWritable {
    func write(to json: inout JSONWriter)
}

extension PostJSON: JSONWritable {
    func write(to json: inout JSONWriter) {
        let viewer = viewer.map { PostMembers.Viewer.known(likedByMe: $0.likedByMe, mine: $0.mine) } ?? .none
        let before = json.offset
        post.withBytes { bytes in
            _ = json.postMembers(bytes, fields: fields, distance: distance, bearing: bearing, viewer: viewer)
        }
        let first = json.offset == before
        if hiddenForAuthor, moderation == nil {
            json.key("status", first: first)
            json.string(PostStatus.hidden.rawValue)
        }
        if let moderation {
            json.key("status", first: first)
            json.string(moderation.status.rawValue)
            json.key("reportCount")
            json.number(moderation.reportCount)
            json.key("clientId")
            json.optional(moderation.clientId) { $0.string($1) }
        }
    }
}

extension JSONWritable {
    /// `{…}` around the members `write(to:)` gives.
    func writeObject(to json: inout JSONWriter) {
        json.raw("{")
        write(to: &json)
        json.raw("}")
    }
}

extension PageJSON: JSONWritable where Item: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.string(itemsKey)
        json.raw(":[")
        for index in items.indices {
            if index > 0 { json.raw(",") }
            items[index].writeObject(to: &json)
        }
        json.raw("]")
        json.key("nextCursor")
        json.optional(nextCursor) { $0.string($1) }
        if let asOf {
            json.key("asOf")
            json.timestamp(milliseconds: asOf)
        }
    }
}

extension ClustersJSON: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.key("clusters", first: true)
        json.raw("[")
        for index in clusters.indices {
            let cluster = clusters[index]
            if index > 0 { json.raw(",") }
            json.raw("{")
            json.key("lat", first: true)
            json.number(cluster.lat)
            json.key("lon")
            json.number(cluster.lon)
            json.key("count")
            json.number(cluster.count)
            if let postId = cluster.postId {
                json.key("postId")
                json.number(postId)
            }
            json.raw("}")
        }
        json.raw("]")
        json.key("total")
        json.number(total)
    }
}
