import GeoIndex

/// The posts' own fields the index does not hold, a row per post: the message in a
/// `TextArena`, the reply count, the accuracy, the device (interned) and, for the few that have
/// one, the beacon. 24 bytes a post plus its message's bytes: no object, string or dictionary
/// entry per post. Place, heading, tag, times, floor and likes are the index's, which keeps
/// each post's row number as its payload, so a post is found without a map of its own; the
/// board puts a `Post` together from both when it answers.
struct PostTable: Sendable {
    private struct Fields {
        /// `TextArena.noSpan` marks a free row.
        var span: TextArena.Span = TextArena.noSpan
        /// `nan` for none.
        var accuracy: Double = .nan
        var replies: Int32 = 0
        /// 0 for none, else the device's interned number + 1.
        var device: UInt32 = 0
    }

    private var fields: [Fields] = []
    private var beacons: [Int32: String] = [:]
    private var freeRows: [Int32] = []
    private var texts: TextArena
    private var deviceNames = DeviceNames()
    /// Garbage below this is left alone (tests make it small).
    private let compactionFloor: Int
    /// Sparse chunks being emptied, and the next row to look at; `nil` between compactions.
    private var evacuation: Evacuation?
    private(set) var compactions = 0
    private(set) var count = 0
    /// Chunks a compaction emptied, until the board frees them outside its lock.
    private var emptiedChunks: [EmptiedChunk] = []

    private struct Evacuation {
        /// By chunk number: whether its texts are leaving.
        var leaving: [Bool]
        var chunks: [Int]
        var nextRow = 0
    }

    /// Rows a write looks at while chunks are emptied: what it adds to that write's time.
    static let rowsPerWrite = 1024

    init(compactionFloor: Int = 32 << 20, chunkBytes: Int = 1 << 24) {
        self.compactionFloor = compactionFloor
        texts = TextArena(chunkBytes: chunkBytes)
    }

    var liveBytes: Int { texts.liveBytes }
    var garbageBytes: Int { texts.garbageBytes }

    /// A post's own fields as stored.
    struct Row {
        var message: String
        var replyCount: Int
        var accuracy: Double?
        var beacon: String?
        var deviceHash: String?
    }

    func row(at r: Int32) -> Row {
        let row = fields[Int(r)]
        precondition(row.span != TextArena.noSpan, "row \(r) is free")
        return Row(
            message: texts.string(row.span), replyCount: Int(row.replies), accuracy: row.accuracy.isNaN ? nil : row.accuracy,
            beacon: beacons.isEmpty ? nil : beacons[r], deviceHash: row.device == 0 ? nil : deviceNames.name(of: row.device - 1))
    }

    /// A row's fields with its message as the arena's UTF-8 bytes, valid only inside `body`.
    struct RowBytes {
        var message: UnsafeRawBufferPointer
        var replyCount: Int
        var accuracy: Double?
        var beacon: String?
        /// 0 for none; else the number `device(named:)` gives for the row's device.
        var device: UInt32
    }

    /// The row without a `String` for its message (answers write the bytes straight out).
    func withRowBytes<R>(at r: Int32, _ body: (RowBytes) throws -> R) rethrows -> R {
        let row = fields[Int(r)]
        precondition(row.span != TextArena.noSpan, "row \(r) is free")
        return try texts.withUTF8(row.span) { message in
            try body(RowBytes(
                message: message, replyCount: Int(row.replies), accuracy: row.accuracy.isNaN ? nil : row.accuracy,
                beacon: beacons.isEmpty ? nil : beacons[r], device: row.device))
        }
    }

    /// The number rows made by this device carry in `RowBytes.device`, `nil` if no row names it.
    func device(named hash: String) -> UInt32? {
        deviceNames.id(of: hash).map { $0 + 1 }
    }

    /// Starts loading the rows (then, as their spans arrive, the texts) that `row(at:)` will read.
    func prefetch(rows: [Int32]) {
        for r in rows { fields.prefetch(from: Int(r)) }
        for r in rows { texts.prefetch(fields[Int(r)].span) }
    }

    /// Stores a post's own fields in a free row; returns the row.
    mutating func add(_ post: Post) -> Int32 {
        let r: Int32
        if let free = freeRows.popLast() {
            r = free
        } else {
            r = Int32(fields.count)
            fields.append(Fields())
        }
        fields[Int(r)].span = texts.append(post.message)
        count += 1
        update(at: r, post)
        return r
    }

    /// Replaces a row's fields with the post's.
    mutating func update(at r: Int32, _ post: Post) {
        let i = Int(r)
        if !texts.holds(fields[i].span, post.message) {
            texts.release(fields[i].span)
            fields[i].span = texts.append(post.message)
        }
        fields[i].replies = Int32(clamping: post.replyCount)
        fields[i].accuracy = post.accuracy ?? .nan
        let previous = fields[i].device
        fields[i].device = device(post.deviceHash)
        if previous != 0 { deviceNames.release(previous - 1) }
        if post.beacon != nil || !beacons.isEmpty { beacons[r] = post.beacon }
        tidy(rows: Self.rowsPerWrite)
    }

    mutating func remove(at r: Int32) {
        let i = Int(r)
        guard fields[i].span != TextArena.noSpan else { return }
        texts.release(fields[i].span)
        if fields[i].device != 0 { deviceNames.release(fields[i].device - 1) }
        fields[i] = Fields()
        beacons[r] = nil
        freeRows.append(r)
        count -= 1
        tidy(rows: Self.rowsPerWrite)
    }

    /// The chunks emptied since the last call, for the caller to free (`EmptiedChunk.release`).
    mutating func takeEmptiedChunks() -> [EmptiedChunk] {
        defer { emptiedChunks = [] }
        return emptiedChunks
    }

    /// Whether chunks are being emptied.
    var isCompacting: Bool { evacuation != nil }

    /// Chunks holding text now.
    var textChunks: Int { texts.chunksInUse }

    /// Empties sparse chunks a step at a time: moves the leaving texts of up to `rows` rows, and
    /// gives the chunks back once every row was looked at. A compaction starts once garbage is
    /// both large and most of what the arena holds. Returns whether one is still under way.
    @discardableResult
    mutating func tidy(rows: Int) -> Bool {
        if evacuation == nil {
            guard texts.garbageBytes > compactionFloor, texts.garbageBytes > texts.liveBytes else { return false }
            let sparse = texts.sparseChunks()
            guard let highest = sparse.max() else { return false }
            var leaving = [Bool](repeating: false, count: highest + 1)
            for chunk in sparse { leaving[chunk] = true }
            evacuation = Evacuation(leaving: leaving, chunks: sparse)
        }
        guard let start = evacuation?.nextRow, let leaving = evacuation?.leaving else { return false }
        let end = min(fields.count, start + rows)
        // Rows added or rewritten meanwhile hold texts in chunks that are not leaving.
        for r in start..<end {
            let span = fields[r].span
            guard span != TextArena.noSpan else { continue }
            let chunk = TextArena.chunk(of: span)
            if chunk < leaving.count, leaving[chunk] { fields[r].span = texts.move(span) }
        }
        evacuation!.nextRow = end
        guard end == fields.count else { return true }
        emptiedChunks += evacuation!.chunks.map { texts.giveBack($0) }
        evacuation = nil
        compactions += 1
        return false
    }

    /// A load's post, in the next row (a load starts from an empty table); `finishLoading` after the last.
    mutating func appendLoaded(_ post: Post) -> Int32 {
        let span = texts.append(post.message)
        fields.append(Fields(span: span, accuracy: post.accuracy ?? .nan, replies: Int32(clamping: post.replyCount), device: device(post.deviceHash)))
        count += 1
        let r = Int32(fields.count - 1)
        if let beacon = post.beacon { beacons[r] = beacon }
        return r
    }

    /// Gives back what growing left unused (a load may not be followed by more for long).
    mutating func finishLoading() {
        fields = fields.exactCopy()
        texts.trimLastChunk()
    }

    private mutating func device(_ hash: String?) -> UInt32 {
        hash.map { deviceNames.retain($0) + 1 } ?? 0
    }

    /// Devices named by the rows held now.
    var devicesKnown: Int { deviceNames.count }
}

extension Array where Element: BitwiseCopyable {
    /// The same elements in storage of exactly their count (growth leaves up to twice that).
    func exactCopy() -> [Element] {
        guard capacity > count else { return self }
        return [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = withUnsafeBufferPointer { buffer.initialize(fromContentsOf: $0) }
        }
    }
}
