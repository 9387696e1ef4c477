/// Message text as UTF-8 bytes in large chunks, each message addressed by one packed `Span`:
/// no object, header or allocation per message. Chunks are filled up and never moved, so
/// growing never copies what is stored; a message taken out leaves its bytes behind as garbage
/// until `compacted` copies the live ones into fresh chunks.
struct TextArena: Sendable {
    /// chunk (24 bits) · offset in the chunk (24 bits) · length in bytes (16 bits).
    typealias Span = UInt64

    static let chunkBytes = 1 << 24
    /// No text: a free row's span.
    static let noSpan = Span.max
    /// Longer texts do not fit a span's length field; messages are far shorter (TextRules).
    static let maxBytes = Int(UInt16.max)

    private var chunks: [[UInt8]] = []
    private(set) var liveBytes = 0

    /// Bytes in chunks that no span points at any more.
    var garbageBytes: Int { chunks.reduce(0) { $0 + $1.count } - liveBytes }

    /// Bytes held (capacity, not just use).
    var bytes: Int { chunks.reduce(0) { $0 + $1.capacity } }

    /// Where each chunk's bytes are, to show they never move.
    var chunkAddresses: [UnsafeRawPointer?] { chunks.map { $0.withUnsafeBytes { $0.baseAddress } } }

    mutating func append(_ text: String) -> Span {
        var text = text
        return text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    mutating func append(_ utf8: UnsafeRawBufferPointer) -> Span {
        precondition(utf8.count <= Self.maxBytes, "a text of \(utf8.count) bytes does not fit a span")
        // A trimmed chunk (capacity cut to its count) is full: growing it would move its bytes.
        if chunks.isEmpty || chunks[chunks.count - 1].count + utf8.count > Self.chunkBytes || chunks[chunks.count - 1].capacity < Self.chunkBytes {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(Self.chunkBytes)
            chunks.append(chunk)
        }
        let chunk = chunks.count - 1
        let offset = chunks[chunk].count
        chunks[chunk].append(contentsOf: utf8)
        liveBytes += utf8.count
        return UInt64(chunk) << 40 | UInt64(offset) << 16 | UInt64(utf8.count)
    }

    func string(_ span: Span) -> String {
        let (chunk, offset, length) = Self.parts(span)
        return chunks[chunk].withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[offset..<offset + length]), as: UTF8.self) }
    }

    /// Whether `span` holds exactly `text`, so an unchanged message is not stored again.
    func holds(_ span: Span, _ text: String) -> Bool {
        let (chunk, offset, length) = Self.parts(span)
        var text = text
        return text.withUTF8 { utf8 in
            utf8.count == length && chunks[chunk].withUnsafeBufferPointer { $0[offset..<offset + length].elementsEqual(utf8) }
        }
    }

    /// Starts loading a text's bytes.
    func prefetch(_ span: Span) {
        guard span != Self.noSpan else { return }
        let (chunk, offset, length) = Self.parts(span)
        chunks[chunk].prefetch(from: offset, count: max(1, length))
    }

    mutating func release(_ span: Span) { liveBytes -= Self.parts(span).length }

    /// A fresh arena holding only the spans given, in their order, and each one's new span.
    func compacted(_ spans: [Span]) -> (TextArena, [Span]) {
        var fresh = TextArena()
        let moved = spans.map { span in
            let (chunk, offset, length) = Self.parts(span)
            return chunks[chunk].withUnsafeBytes { fresh.append(UnsafeRawBufferPointer(rebasing: $0[offset..<offset + length])) }
        }
        fresh.trimLastChunk()
        return (fresh, moved)
    }

    /// Gives back the unused end of the last chunk (after a load: nothing more may come for long);
    /// the chunk is full from then on, so what comes later goes into a new one.
    mutating func trimLastChunk() {
        guard let last = chunks.indices.last, chunks[last].capacity > chunks[last].count else { return }
        chunks[last] = chunks[last].exactCopy()
    }

    private static func parts(_ span: Span) -> (chunk: Int, offset: Int, length: Int) {
        (Int(span >> 40), Int(span >> 16 & 0xFF_FFFF), Int(span & 0xFFFF))
    }
}
