/// The import keys a bulk load has seen: open addressing with linear probing over the digests
/// themselves. A SHA-256's first word is already uniform, so it places a key without hashing
/// it again (a `Set` seeds and runs SipHash for each of a million rows).
struct DigestSet {
    private var buckets = [ImportKey.Digest?](repeating: nil, count: 1 << 10)
    private(set) var count = 0

    /// Adds `digest`; false when it was there already.
    mutating func insert(_ digest: ImportKey.Digest) -> Bool {
        if (count + 1) * 2 > buckets.count { grow() }
        let mask = buckets.count - 1
        var bucket = Int(truncatingIfNeeded: digest.words.0) & mask
        while let filed = buckets[bucket] {
            if filed == digest { return false }
            bucket = (bucket + 1) & mask
        }
        buckets[bucket] = digest
        count += 1
        return true
    }

    private mutating func grow() {
        let old = buckets
        buckets = [ImportKey.Digest?](repeating: nil, count: old.count * 2)
        count = 0
        for case let digest? in old { _ = insert(digest) }
    }
}
