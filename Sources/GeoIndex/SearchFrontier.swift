/// The frontier of a best-first walk (nearby, browse): a binary min-heap of small entries,
/// compared inline, in a buffer it owns. Not copyable, so the buffer has one owner and no push
/// or pop pays for an array's uniqueness, bounds or capacity checks.
struct SearchFrontier: ~Copyable {
    enum State: UInt8 {
        /// Ordered first among equal keys: a node may hold a post that ties.
        case node = 0
        case leaf = 1
        /// A post keyed by a lower bound, not yet evaluated.
        case candidatePost = 2
        /// A post keyed by its exact value (distance, or time when browsing).
        case exactPost = 3
    }

    struct Entry {
        var key: Double
        var tie: Int64
        var ref: Int32
        var state: State
        /// A node or leaf wholly inside the filter's place: its posts skip the place test.
        var inPlace = false

        @inline(__always)
        static func < (a: Entry, b: Entry) -> Bool {
            if a.key != b.key { return a.key < b.key }
            if a.state != b.state { return a.state.rawValue < b.state.rawValue }
            return a.tie < b.tie
        }
    }

    private var heap: UnsafeMutablePointer<Entry>
    private var capacity: Int
    private var count = 0

    init(capacity: Int = 256) {
        self.capacity = capacity
        heap = .allocate(capacity: capacity)
    }

    deinit { heap.deallocate() }

    /// The smallest key waiting, infinity when empty.
    var minimumKey: Double { count > 0 ? heap[0].key : .infinity }

    /// Sift-up by moving a hole, not by swapping: one write per level.
    mutating func push(_ entry: Entry) {
        if count == capacity { grow() }
        count += 1
        Self.rise(entry, from: count - 1, in: heap)
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<Entry>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: heap, count: count)
        heap.deallocate()
        heap = larger
        capacity *= 2
    }

    /// Moves the hole at `start` up past every parent greater than `entry`, and fills it.
    @inline(__always)
    private static func rise(_ entry: Entry, from start: Int, in h: UnsafeMutablePointer<Entry>) {
        var hole = start
        while hole > 0 {
            let up = (hole - 1) >> 1
            guard entry < h[up] else { break }
            h[hole] = h[up]
            hole = up
        }
        h[hole] = entry
    }

    /// Floyd's pop: the hole at the top sinks along the smaller children to the bottom (one
    /// comparison a level, not two), then the last entry, which belongs near the bottom
    /// anyway, rises from there to its place.
    mutating func pop() -> Entry? {
        guard count > 0 else { return nil }
        count -= 1
        let top = heap[0]
        guard count > 0 else { return top }
        let last = heap[count]
        var hole = 0
        while true {
            let left = 2 * hole + 1
            guard left < count else { break }
            let right = left + 1
            let smaller = right < count && heap[right] < heap[left] ? right : left
            heap[hole] = heap[smaller]
            hole = smaller
        }
        Self.rise(last, from: hole, in: heap)
        return top
    }
}
