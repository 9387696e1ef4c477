#if canImport(Glibc)
import Glibc
#endif

/// Message text as UTF-8 bytes in large chunks, each message addressed by one packed `Span`:
/// no object, header or allocation per message. Chunks are filled up and never grown past
/// their first capacity, so storing more never copies what is stored. A message taken out
/// leaves its bytes behind as garbage; a sparse chunk is emptied by moving its live texts one
/// at a time (`move`), a few per write, and is then given back whole.
struct TextArena: Sendable {
    /// chunk (24 bits) · offset in the chunk (24 bits) · length in bytes (16 bits).
    typealias Span = UInt64

    /// A chunk's size; the offset field holds at most 2²⁴ (tests make it small).
    let chunkBytes: Int
    /// No text: a free row's span.
    static let noSpan = Span.max
    /// Longer texts do not fit a span's length field; messages are far shorter (TextRules).
    static let maxBytes = Int(UInt16.max)

    private var chunks: [[UInt8]] = []
    /// Bytes of each chunk that spans still point at: a chunk at 0 can be given back.
    private var chunkLive: [Int] = []
    /// Chunks given back, whose numbers new chunks take first.
    private var unusedChunks: [Int] = []
    /// The chunk appended to; `nil` when the next text starts a new one.
    private var filling: Int?
    private(set) var liveBytes = 0
    private var storedBytes = 0

    init(chunkBytes: Int = 1 << 24) {
        precondition(chunkBytes > Self.maxBytes && chunkBytes <= 1 << 24, "a chunk holds one longest text and fits the offset field")
        self.chunkBytes = chunkBytes
    }

    /// Bytes in chunks that no span points at any more.
    var garbageBytes: Int { storedBytes - liveBytes }

    /// Bytes held (capacity, not just use).
    var bytes: Int { chunks.reduce(0) { $0 + $1.capacity } }

    /// Chunks that hold bytes now.
    var chunksInUse: Int { chunks.count - unusedChunks.count }

    /// Where each chunk's bytes are, to show they never move.
    var chunkAddresses: [UnsafeRawPointer?] { chunks.map { $0.withUnsafeBytes { $0.baseAddress } } }

    mutating func append(_ text: String) -> Span {
        var text = text
        return text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    mutating func append(_ utf8: UnsafeRawBufferPointer) -> Span {
        precondition(utf8.count <= Self.maxBytes, "a text of \(utf8.count) bytes does not fit a span")
        let chunk = chunk(taking: utf8.count)
        let offset = chunks[chunk].count
        chunks[chunk].append(contentsOf: utf8)
        liveBytes += utf8.count
        storedBytes += utf8.count
        chunkLive[chunk] += utf8.count
        return UInt64(chunk) << 40 | UInt64(offset) << 16 | UInt64(utf8.count)
    }

    /// The chunk with room for `count` more bytes, started if the one filling has none.
    private mutating func chunk(taking count: Int) -> Int {
        // A trimmed chunk (capacity cut to its count) is full: growing it would move its bytes.
        if let filling, chunks[filling].count + count <= chunkBytes, chunks[filling].capacity >= chunkBytes { return filling }
        var fresh: [UInt8] = []
        fresh.reserveCapacity(chunkBytes)
        let chunk: Int
        if let unused = unusedChunks.popLast() {
            chunk = unused
            chunks[chunk] = fresh
        } else {
            chunk = chunks.count
            precondition(chunk < 1 << 24, "chunk numbers exhausted")
            chunks.append(fresh)
            chunkLive.append(0)
        }
        filling = chunk
        return chunk
    }

    func string(_ span: Span) -> String {
        let (chunk, offset, length) = Self.parts(span)
        return chunks[chunk].withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[offset..<offset + length]), as: UTF8.self) }
    }

    /// The span's UTF-8 bytes, valid only inside `body`: a reader copies them out without a `String`.
    func withUTF8<R>(_ span: Span, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let (chunk, offset, length) = Self.parts(span)
        return try chunks[chunk].withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[offset..<offset + length])) }
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

    mutating func release(_ span: Span) {
        let (chunk, _, length) = Self.parts(span)
        liveBytes -= length
        chunkLive[chunk] -= length
    }

    /// The chunks worth emptying now: those at most half live. The one filling is among them
    /// when it qualifies, and stops taking texts, so emptying it can finish.
    mutating func sparseChunks() -> [Int] {
        let sparse = chunks.indices.filter { !chunks[$0].isEmpty && chunkLive[$0] * 2 <= chunks[$0].count }
        if let filling, sparse.contains(filling) { self.filling = nil }
        return sparse
    }

    static func chunk(of span: Span) -> Int { Int(span >> 40) }

    /// Copies a text into the chunk filling and releases it where it was; returns its new span.
    mutating func move(_ span: Span) -> Span {
        let (chunk, offset, length) = Self.parts(span)
        // Another reference to the source chunk: it is only read while the chunk filling grows.
        let source = chunks[chunk]
        let moved = source.withUnsafeBytes { append(UnsafeRawBufferPointer(rebasing: $0[offset..<offset + length])) }
        release(span)
        return moved
    }

    /// Takes a chunk no span points at any more out of the arena, its number free for the next
    /// one; the caller frees its bytes (`release`), outside the board's lock.
    mutating func giveBack(_ chunk: Int) -> EmptiedChunk {
        precondition(chunkLive[chunk] == 0, "chunk \(chunk) still holds \(chunkLive[chunk]) live bytes")
        storedBytes -= chunks[chunk].count
        let emptied = EmptiedChunk(bytes: chunks[chunk])
        chunks[chunk] = []
        if filling == chunk { filling = nil }
        unusedChunks.append(chunk)
        return emptied
    }

    /// Gives back the unused end of the chunk filling (after a load: nothing more may come for
    /// long); that chunk is full from then on, so what comes later goes into a new one.
    mutating func trimLastChunk() {
        guard let filling, chunks[filling].capacity > chunks[filling].count else { return }
        chunks[filling] = chunks[filling].exactCopy()
    }

    private static func parts(_ span: Span) -> (chunk: Int, offset: Int, length: Int) {
        (Int(span >> 40), Int(span >> 16 & 0xFF_FFFF), Int(span & 0xFFFF))
    }
}

/// A chunk's bytes after the arena let it go.
struct EmptiedChunk: Sendable {
    fileprivate let bytes: [UInt8]

    /// Hands its pages back to the system, then frees it: the allocator would keep them resident,
    /// and trimming its whole heap instead stalls every thread's allocations for tens of
    /// milliseconds at 10M posts.
    func release() {
        #if canImport(Glibc)
        // Read-only access: a mutable one would copy the bytes while the caller's array shares them.
        bytes.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let start = (Int(bitPattern: base) + page - 1) / page * page
            let end = (Int(bitPattern: base) + bytes.count) / page * page
            guard end > start else { return }
            _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_DONTNEED)
        }
        #endif
    }
}
