/// A set of recent ids in two generations of at most `perGeneration`: the older half is
/// forgotten when the newer fills, so it stays bounded while remembering the last moments.
struct RecentIDs: Sendable {
    static let perGeneration = 50_000
    private var newer: Set<Int64> = []
    private var older: Set<Int64> = []

    func contains(_ id: Int64) -> Bool { newer.contains(id) || older.contains(id) }

    /// Adds the id; false if it was there already.
    mutating func insert(_ id: Int64) -> Bool {
        guard !contains(id) else { return false }
        if newer.count >= Self.perGeneration { (older, newer) = (newer, []) }
        newer.insert(id)
        return true
    }
}
