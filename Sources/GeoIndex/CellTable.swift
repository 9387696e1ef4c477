import IndexIntrinsics

/// Cell keys to cell numbers: open addressing with linear probing and deletion by backward
/// shift, each key beside its number, so a lookup usually reads one line, and a point's lines
/// for every cell size can be asked for before any of them is read (a `Dictionary` hashes with
/// SipHash and reads its metadata, keys and values from three places).
struct CellTable: Sendable {
    struct Bucket: Sendable {
        var key: Int64
        /// -1 when the bucket is empty.
        var number: Int32
    }

    private var buckets = [Bucket](repeating: Bucket(key: 0, number: -1), count: 16)
    /// The capacity is 2^(64 - shift): the home bucket is a product's top bits.
    private var shift = 60
    private(set) var count = 0

    @inline(__always)
    private func home(_ key: Int64) -> Int { Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift)) }

    /// Asks for the line of `key`'s home bucket and returns at once.
    @inline(__always)
    func prefetch(_ key: Int64) {
        buckets.withUnsafeBufferPointer { index_prefetch(UnsafeRawPointer($0.baseAddress! + home(key))) }
    }

    subscript(key: Int64) -> Int32? {
        buckets.withUnsafeBufferPointer { buckets in
            var bucket = home(key)
            while true {
                let found = buckets[bucket]
                if found.number < 0 { return nil }
                if found.key == key { return found.number }
                bucket = (bucket &+ 1) & (buckets.count &- 1)
            }
        }
    }

    /// Files `number` under `key`, which must not be filed yet.
    mutating func insert(_ key: Int64, number: Int32) {
        precondition(number >= 0, "cell numbers are not negative")
        if (count + 1) * 4 > buckets.count * 3 { grow() }
        var bucket = home(key)
        while buckets[bucket].number >= 0 {
            precondition(buckets[bucket].key != key, "cell \(key) is filed already")
            bucket = (bucket + 1) & (buckets.count - 1)
        }
        buckets[bucket] = Bucket(key: key, number: number)
        count += 1
    }

    /// Forgets `key`; shifts back every later bucket of its run that may move into the hole.
    mutating func remove(_ key: Int64) {
        let mask = buckets.count - 1
        var hole = home(key)
        while buckets[hole].key != key || buckets[hole].number < 0 {
            guard buckets[hole].number >= 0 else { return }
            hole = (hole + 1) & mask
        }
        var next = (hole + 1) & mask
        while buckets[next].number >= 0 {
            // A bucket may fill the hole when its home is not cyclically within (hole, next].
            let wanted = home(buckets[next].key)
            if (next - wanted) & mask >= (next - hole) & mask {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole].number = -1
        count -= 1
    }

    /// Every key and its number, in no order.
    var all: [(key: Int64, number: Int32)] { buckets.filter { $0.number >= 0 }.map { ($0.key, $0.number) } }

    private mutating func grow() {
        let old = buckets
        buckets = [Bucket](repeating: Bucket(key: 0, number: -1), count: old.count * 2)
        shift -= 1
        count = 0
        for bucket in old where bucket.number >= 0 { insert(bucket.key, number: bucket.number) }
    }
}
