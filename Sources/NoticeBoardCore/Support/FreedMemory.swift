#if canImport(Glibc)
import Glibc
#endif

/// Hands memory the process freed back to the system. A load builds and drops a few small
/// objects per post; glibc keeps those freed pages in its heaps, where the resident size
/// counts them, until asked to let them go (`malloc_trim`, looked up because Swift's Glibc
/// module leaves out malloc.h).
enum FreedMemory {
    static func release() {
        #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }
}
