/// Finds a post's slot by its id: an open-addressing hash table (linear probing, deletion by
/// backward shift) whose buckets hold only the slot; the key is read back from the id column,
/// so the map costs a fraction of what a `[Int64: Int32]` dictionary does per post.
///
/// Every call that compares keys takes the id column: the table holds no ids of its own.
public struct SlotMap: Sendable {
    private static let empty: Int32 = -1
    /// Grown when fuller than this; built at `bulkLoad`, so a fresh index wastes little.
    private static let maxLoad = 0.85
    private static let bulkLoad = 0.7

    private(set) var buckets: [Int32] = []
    public private(set) var count = 0

    public init() {}

    /// An empty map sized for `expected` entries.
    public init(expected: Int) {
        buckets = Array(repeating: Self.empty, count: Self.capacity(for: expected))
    }

    private static func capacity(for entries: Int) -> Int { max(8, Int(Double(entries) / bulkLoad) + 1) }

    /// The first bucket to probe: a multiplicative hash mapped onto the table by a 128-bit
    /// product, so the table size need not be a power of two.
    @inline(__always)
    private func home(_ id: Int64) -> Int {
        let mixed = UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15
        let spread = mixed ^ (mixed >> 29)
        return Int(spread.multipliedFullWidth(by: UInt64(buckets.count)).high)
    }

    @inline(__always)
    private func next(_ bucket: Int) -> Int { bucket + 1 == buckets.count ? 0 : bucket + 1 }

    /// The bucket holding `id`, if any.
    private func bucket(of id: Int64, ids: [Int64]) -> Int? {
        guard !buckets.isEmpty else { return nil }
        var b = home(id)
        while true {
            let slot = buckets[b]
            if slot == Self.empty { return nil }
            if ids[Int(slot)] == id { return b }
            b = next(b)
        }
    }

    public func slot(of id: Int64, ids: [Int64]) -> Int32? {
        bucket(of: id, ids: ids).map { buckets[$0] }
    }

    /// Adds `id` at `slot`; `ids[slot]` must already be `id`, and `id` must not be in the map.
    public mutating func insert(_ id: Int64, slot: Int32, ids: [Int64]) {
        if Double(count + 1) > Double(buckets.count) * Self.maxLoad { rehash(capacity: Self.capacity(for: 2 * (count + 1)), ids: ids) }
        var b = home(id)
        while buckets[b] != Self.empty { b = next(b) }
        buckets[b] = slot
        count += 1
    }

    /// Points `id` at another slot; call while `ids` still holds `id` at its old slot.
    public mutating func move(_ id: Int64, to slot: Int32, ids: [Int64]) {
        guard let b = bucket(of: id, ids: ids) else { preconditionFailure("moving id \(id), which is not in the map") }
        buckets[b] = slot
    }

    /// Removes `id`, returning its slot; the id column must still hold every mapped id.
    @discardableResult
    public mutating func remove(_ id: Int64, ids: [Int64]) -> Int32? {
        guard var hole = bucket(of: id, ids: ids) else { return nil }
        let removed = buckets[hole]
        buckets[hole] = Self.empty
        count -= 1
        // Backward shift: pull later entries of the run into the hole unless that would put
        // them before their home bucket.
        var b = next(hole)
        while buckets[b] != Self.empty {
            let home = home(ids[Int(buckets[b])])
            let movable = hole <= b ? (home <= hole || home > b) : (home <= hole && home > b)
            if movable {
                buckets[hole] = buckets[b]
                buckets[b] = Self.empty
                hole = b
            }
            b = next(b)
        }
        return removed
    }

    private mutating func rehash(capacity: Int, ids: [Int64]) {
        let old = buckets
        buckets = Array(repeating: Self.empty, count: capacity)
        for slot in old where slot != Self.empty {
            var b = home(ids[Int(slot)])
            while buckets[b] != Self.empty { b = next(b) }
            buckets[b] = slot
        }
    }

    public var bytes: Int { buckets.capacity * 4 }
}
