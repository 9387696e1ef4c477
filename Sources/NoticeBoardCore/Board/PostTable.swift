import GeoIndex

/// The posts' own fields the index does not hold, a row per post in columns: the message in a
/// `TextArena`, the reply count, the accuracy, the device (interned) and, for the few that have
/// one, the beacon. About 40 bytes a post plus its message's bytes: no object, string or
/// dictionary entry per post. Place, heading, tag, times, floor and likes are the index's; the
/// board puts a `Post` together from both when it answers.
struct PostTable: Sendable {
    private var rowOfID = SlotMap()
    /// -1 marks a free row.
    private var ids: [Int64] = []
    private var spans: [TextArena.Span] = []
    private var replies: [Int32] = []
    /// `nan` for none.
    private var accuracies: [Double] = []
    /// 0 for none, else the device's interned number + 1.
    private var devices: [UInt32] = []
    private var beacons: [Int32: String] = [:]
    private var freeRows: [Int32] = []
    private var texts = TextArena()
    private var deviceNames = Interner<UInt32>()
    /// Garbage below this is left alone (tests make it small).
    private let compactionFloor: Int
    private(set) var compactions = 0

    init(compactionFloor: Int = 32 << 20) {
        self.compactionFloor = compactionFloor
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

    var count: Int { rowOfID.count }

    func contains(_ id: Int64) -> Bool { rowOfID.slot(of: id, ids: ids) != nil }

    func row(_ id: Int64) -> Row? {
        guard let found = rowOfID.slot(of: id, ids: ids) else { return nil }
        let r = Int(found)
        return Row(
            message: texts.string(spans[r]), replyCount: Int(replies[r]), accuracy: accuracies[r].isNaN ? nil : accuracies[r],
            beacon: beacons[found], deviceHash: devices[r] == 0 ? nil : deviceNames.name(of: devices[r] - 1))
    }

    /// Stores the post's own fields, over those of a post with its id if there is one.
    mutating func put(_ post: Post) {
        let r: Int
        if let found = rowOfID.slot(of: post.id, ids: ids) {
            r = Int(found)
            if !texts.holds(spans[r], post.message) {
                texts.release(spans[r])
                spans[r] = texts.append(post.message)
            }
        } else {
            r = newRow(for: post.id)
            spans[r] = texts.append(post.message)
        }
        replies[r] = Int32(clamping: post.replyCount)
        accuracies[r] = post.accuracy ?? .nan
        devices[r] = post.deviceHash.map { deviceNames.intern($0) + 1 } ?? 0
        beacons[Int32(r)] = post.beacon
    }

    mutating func remove(_ id: Int64) {
        guard let found = rowOfID.remove(id, ids: ids) else { return }
        let r = Int(found)
        texts.release(spans[r])
        ids[r] = -1
        beacons[found] = nil
        freeRows.append(found)
        // Garbage is copied away once it is both large and most of what the arena holds.
        if texts.garbageBytes > compactionFloor, texts.garbageBytes > texts.liveBytes { compactTexts() }
    }

    private mutating func newRow(for id: Int64) -> Int {
        let r: Int
        if let free = freeRows.popLast() {
            r = Int(free)
            ids[r] = id
        } else {
            r = ids.count
            ids.append(id)
            spans.append(0)
            replies.append(0)
            accuracies.append(.nan)
            devices.append(0)
        }
        rowOfID.insert(id, slot: Int32(r), ids: ids)
        return r
    }

    private mutating func compactTexts() {
        let live = ids.indices.filter { ids[$0] >= 0 }
        let (fresh, moved) = texts.compacted(live.map { spans[$0] })
        for (r, span) in zip(live, moved) { spans[r] = span }
        texts = fresh
        compactions += 1
    }

    /// Gives back what growing left unused (after a load).
    mutating func trim() {
        ids = ids.exactCopy()
        spans = spans.exactCopy()
        replies = replies.exactCopy()
        accuracies = accuracies.exactCopy()
        devices = devices.exactCopy()
        texts.trimLastChunk()
    }

    /// Bytes held, capacities included (the beacon and device maps estimated).
    var bytes: Int {
        rowOfID.bytes + ids.capacity * 8 + spans.capacity * 8 + replies.capacity * 4 + accuracies.capacity * 8 + devices.capacity * 4
            + texts.bytes + beacons.count * 64 + deviceNames.count * 128
    }
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
