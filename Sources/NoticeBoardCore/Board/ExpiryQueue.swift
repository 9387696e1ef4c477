/// Notes with a lifetime, soonest expiry first (a binary min-heap): what the board must tell
/// streams about next. An entry whose post has gone meanwhile is simply skipped when due.
struct ExpiryQueue: Sendable {
    private var heap: [(at: Int64, id: Int64)] = []

    var count: Int { heap.count }
    var nextInstant: Int64? { heap.first?.at }

    mutating func add(id: Int64, at instant: Int64) {
        heap.append((instant, id))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].at < heap[parent].at else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns every entry due at or before `instant`.
    mutating func popDue(atOrBefore instant: Int64) -> [Int64] {
        var due: [Int64] = []
        while let first = heap.first, first.at <= instant {
            due.append(first.id)
            heap.swapAt(0, heap.count - 1)
            heap.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count, heap[left].at < heap[smallest].at { smallest = left }
                if right < heap.count, heap[right].at < heap[smallest].at { smallest = right }
                guard smallest != parent else { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return due
    }
}
