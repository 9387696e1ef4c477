import Foundation

/// The contract's popular score, `(likes + 1) / (hours + 2)^1.5` with `hours` from creation to the
/// instant scored at. A post stamped after the instant (another instance's clock a moment ahead)
/// scores as if just made: the formula has no value below -2 hours.
public enum PopularScore {
    public static let millisecondsPerHour = 3_600_000.0

    @inlinable
    public static func score(likes: Int32, createdAt: Int64, at instant: Int64) -> Double {
        let hours = max(0, Double(instant - createdAt) / millisecondsPerHour)
        return (Double(likes) + 1) / pow(hours + 2, 1.5)
    }

    /// At least the score of any post below a node: the most likes at the newest time. Raised by
    /// a millionth of a millionth because `pow` is not promised to be monotonic to the last bit.
    static func bound(_ summary: NodeSummary, at instant: Int64) -> Double {
        score(likes: summary.maxLikes, createdAt: min(summary.maxTime, instant), at: instant) * (1 + 1e-12)
    }

    /// Whether `(score, id)` comes strictly after `(afterScore, afterId)`: highest first, ties by id descending.
    @inlinable
    public static func comes(score: Double, id: Int64, after afterScore: Double, _ afterId: Int64) -> Bool {
        score < afterScore || (score == afterScore && id < afterId)
    }
}
