extension Board {
    /// Rows one background step looks at: a 10M-post compaction finishes in seconds of ticks,
    /// and a read waits behind a step for about a tenth of a millisecond at most.
    static let rowsPerTidyStep = 8192

    /// Moves a compaction of the message texts on by up to `steps` steps, each its own short
    /// hold of the write lock; returns whether one is still under way. The loader calls it on
    /// its tick, so a compaction ends even when no more posts come.
    @discardableResult
    public func tidyMemory(steps: Int = 32) -> Bool {
        for _ in 0..<steps {
            guard state.write({ $0.posts.tidy(rows: Self.rowsPerTidyStep) }) else {
                releaseChunksGivenBack()
                return false
            }
        }
        return true
    }

    /// glibc keeps the chunks a compaction gave back resident until asked to let them go.
    private func releaseChunksGivenBack() {
        let finished = state.write { state in
            defer { state.compactionsReleased = state.posts.compactions }
            return state.posts.compactions != state.compactionsReleased
        }
        if finished { FreedMemory.release() }
    }

    /// Compactions of the message texts finished since the load.
    public var textCompactions: Int { state.read { $0.posts.compactions } }

    /// Whether the message texts are being compacted.
    public var isCompactingTexts: Bool { state.read { $0.posts.isCompacting } }

    /// The message texts' bytes still pointed at, and those left behind by removals.
    public var textBytes: (live: Int, garbage: Int) { state.read { ($0.posts.liveBytes, $0.posts.garbageBytes) } }
}
