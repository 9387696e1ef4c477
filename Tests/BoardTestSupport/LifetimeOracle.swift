import Foundation

/// Lifetimes, likes and the popular order by brute force, written apart from the index: the
/// board as it stood at an instant, and the contract's score formula spelled out again.
public enum LifetimeOracle {
    /// Whether a post shows at `instant`: made by then (only for a given `asOf`) and not expired.
    public static func shows(createdAt: Int64, expiresAt: Int64?, at instant: Int64, limitsCreation: Bool) -> Bool {
        if limitsCreation, createdAt > instant { return false }
        if let expiresAt, expiresAt <= instant { return false }
        return true
    }

    /// `(likeCount + 1) / (hours + 2)^1.5`, hours from creation to the instant (none for a post
    /// made after it).
    public static func score(likes: Int32, createdAt: Int64, at instant: Int64) -> Double {
        (Double(likes) + 1) / pow(Double(max(0, instant - createdAt)) / 3_600_000 + 2, 1.5)
    }

    /// Highest score first, ties by id descending.
    public static func popularFirst(_ a: (score: Double, id: Int64), _ b: (score: Double, id: Int64)) -> Bool {
        a.score != b.score ? a.score > b.score : a.id > b.id
    }

    /// Lifetimes for random posts: about half never expire; the rest end within the data's span,
    /// some exactly at another post's creation instant (ties between the two bounds).
    public static func expiries(for posts: [SamplePost], using rng: inout SeededGenerator) -> [Int64: Int64] {
        var expiries: [Int64: Int64] = [:]
        for post in posts where Bool.random(using: &rng) {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: expiries[post.id] = posts.randomElement(using: &rng)!.createdAt
            default: expiries[post.id] = post.createdAt + 60_001 + Int64.random(in: 0..<(20 * 86_400_000), using: &rng)
            }
        }
        return expiries
    }

    /// Zipf-like like counts: most posts none, a few many.
    public static func likes(for posts: [SamplePost], using rng: inout SeededGenerator) -> [Int64: Int32] {
        var likes: [Int64: Int32] = [:]
        for post in posts where Int.random(in: 0..<4, using: &rng) == 0 {
            likes[post.id] = Int32(1000 / Int.random(in: 1...1000, using: &rng))
        }
        return likes
    }
}
