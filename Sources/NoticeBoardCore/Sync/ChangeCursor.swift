/// Where an instance stands in the database's change sequence. Sequence numbers are handed out
/// when a change is made but become visible when its transaction commits, so a later number
/// can be seen before an earlier one: a gap may still fill in. The cursor keeps a low
/// watermark below which everything has been applied, remembers what it has applied above
/// it, and gives a gap up (a rolled-back transaction never fills it) only after `gapTimeout`.
public struct ChangeCursor: Sendable, Equatable {
    /// Every change at or below this has been applied, or given up as never coming.
    public private(set) var watermark: Int64
    private var appliedAbove: Set<Int64> = []
    /// When each open gap was first seen, in the caller's clock (seconds).
    private var gapSince: [Int64: Double] = [:]
    public let gapTimeout: Double

    public init(after watermark: Int64, gapTimeout: Double = 10) {
        self.watermark = watermark
        self.gapTimeout = gapTimeout
    }

    /// Whether a change still needs applying (it may be read again while a gap below it is open).
    public func isNew(_ sequence: Int64) -> Bool {
        sequence > watermark && !appliedAbove.contains(sequence)
    }

    /// Records that `sequences` were applied at time `now`, and moves the watermark up over
    /// everything contiguous, and over gaps older than the timeout.
    public mutating func applied(_ sequences: some Sequence<Int64>, now: Double) {
        for sequence in sequences where sequence > watermark { appliedAbove.insert(sequence) }
        guard let highest = appliedAbove.max() else { return }
        var next = watermark + 1
        while next <= highest {
            if appliedAbove.remove(next) != nil {
                gapSince[next] = nil
            } else {
                let since = gapSince[next] ?? now
                gapSince[next] = since
                guard now - since >= gapTimeout else { break }
                gapSince[next] = nil
            }
            watermark = next
            next += 1
        }
    }
}
