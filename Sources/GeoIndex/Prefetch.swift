import IndexIntrinsics

extension Array {
    /// Starts loading every cache line that holds one of `count` elements from `index` on, and
    /// returns at once, without waiting and without faulting.
    @inline(__always)
    func prefetch(from index: Int, count: Int = 1) {
        withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let first = Int(bitPattern: UnsafeRawPointer(base + index)) & ~63
            let last = Int(bitPattern: UnsafeRawPointer(base + index + count)) - 1
            for line in stride(from: first, through: last, by: 64) {
                index_prefetch(UnsafeRawPointer(bitPattern: line))
            }
        }
    }
}
