import IndexIntrinsics

extension Array {
    /// Starts loading every cache line that holds one of `count` elements from `index` on, and
    /// returns at once, without waiting and without faulting. Straight-line code for the
    /// constant counts callers pass: a few instructions a line, not a loop.
    @inline(__always)
    public func prefetch(from index: Int, count: Int = 1) {
        withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let start = UnsafeRawPointer(base + index)
            let bytes = count * MemoryLayout<Element>.stride
            // Every 64th byte, then the last one: each line the elements lie in, however they
            // are aligned. A lone naturally aligned scalar lies in one line: no second hint.
            for offset in stride(from: 0, to: bytes, by: 64) { index_prefetch(start + offset) }
            if bytes > MemoryLayout<Element>.alignment { index_prefetch(start + (bytes - 1)) }
        }
    }
}
