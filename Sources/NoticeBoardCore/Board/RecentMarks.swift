/// A mark for each recent id, in two generations of at most `perGeneration`: the older half is
/// forgotten when the newer fills, so it stays bounded while remembering the last moments.
struct RecentMarks<Mark: Equatable & Sendable>: Sendable {
    static var perGeneration: Int { 50_000 }
    private var newer: [Int64: Mark] = [:]
    private var older: [Int64: Mark] = [:]

    subscript(id: Int64) -> Mark? { newer[id] ?? older[id] }

    /// Marks the id; false if it had this mark already.
    mutating func set(_ id: Int64, to mark: Mark) -> Bool {
        guard self[id] != mark else { return false }
        if newer[id] == nil, newer.count >= Self.perGeneration { (older, newer) = (newer, [:]) }
        newer[id] = mark
        return true
    }
}
