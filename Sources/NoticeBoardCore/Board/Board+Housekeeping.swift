extension Board {
    /// Rows one background step looks at: a 10M-post compaction finishes in seconds of ticks,
    /// and a read waits behind a step for about a tenth of a millisecond at most.
    static let rowsPerTidyStep = 8192

    /// Moves a compaction of the message texts on by up to `steps` steps, each its own short
    /// hold of the write lock; returns whether one is still under way. The loader calls it on
    /// its tick, so a compaction ends even when no more posts come.
    @discardableResult
    public func tidyMemory(steps: Int = 32) -> Bool {
        var underWay = true
        for _ in 0..<steps where underWay {
            underWay = state.write { $0.posts.tidy(rows: Self.rowsPerTidyStep) }
        }
        // Emptied chunks are freed here, not under the lock (a compaction at the end of a
        // write leaves its chunks for the next tick).
        for chunk in state.write({ $0.posts.takeEmptiedChunks() }) { chunk.release() }
        return underWay
    }

    /// Compactions of the message texts finished since the load.
    public var textCompactions: Int { state.read { $0.posts.compactions } }

    /// Whether the message texts are being compacted.
    public var isCompactingTexts: Bool { state.read { $0.posts.isCompacting } }

    /// The message texts' bytes still pointed at, and those left behind by removals.
    public var textBytes: (live: Int, garbage: Int) { state.read { ($0.posts.liveBytes, $0.posts.garbageBytes) } }
}
