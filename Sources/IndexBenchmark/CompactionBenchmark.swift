import Foundation
import BoardTestSupport
import NoticeBoardCore
import Synchronization

/// `noticeboard-bench compaction POSTS [REMOVED_SHARE=0.6]`: reads while the message texts are
/// compacted. A board of POSTS notes is loaded, then a share of them is taken out one by one
/// (each a change as the change feed applies it) until the garbage left in the text arena
/// starts a compaction, which the loader's tick moves on as the server's does. A reader thread
/// asks a walker's view (100 m) every millisecond on a fixed schedule, each read timed from when it was due,
/// so a read held up behind the write lock makes the ones after it late too. Prints the reads'
/// latency before and while posts leave and chunks are emptied, the longest write, and memory.
func runCompactionBenchmark(_ arguments: [String]) async {
    guard arguments.count >= 3, let postCount = Int(arguments[2]) else {
        print("usage: noticeboard-bench compaction POSTS [REMOVED_SHARE=0.6]")
        exit(2)
    }
    let removedShare = arguments.count > 3 ? Double(arguments[3])! : 0.6
    let board = Board(store: GeneratedPosts(count: postCount))
    let residentEmpty = residentBytes()
    let loadStart = ContinuousClock.now
    try! await board.load()
    print("posts: \(board.postCount), load: \(String(format: "%.1f", (ContinuousClock.now - loadStart).seconds)) s, resident \(residentBytes() - residentEmpty) B")

    let reads = ScheduledReads(board: board)
    let baseline = reads.run(for: .seconds(5))
    print("| phase | reads | p50 | p99 | p99.9 | max |\n|---|---|---|---|---|---|")
    print(baseline.row("no writes"))

    // The loader's tick, as in the server: every 250 ms a few bounded steps of any compaction.
    let ticking = RunningFlag()
    let ticker = Thread {
        while ticking.running.load(ordering: .relaxed) {
            board.tidyMemory()
            Thread.sleep(forTimeInterval: 0.25)
        }
    }
    ticker.start()
    let compactionsBefore = board.textCompactions
    var random = SeededGenerator(seed: 40)
    var shuffled = Array(1...Int64(postCount))
    shuffled.shuffle(using: &random)
    let leaving = shuffled.prefix(Int(Double(postCount) * removedShare))
    let stillRemoving = RunningFlag()
    let removing = Thread {
        var longest = Duration.zero
        let start = ContinuousClock.now
        for id in leaving {
            let began = ContinuousClock.now
            board.reconcile(GeneratedPosts.post(id), status: .hidden, version: 2)
            longest = max(longest, ContinuousClock.now - began)
        }
        stillRemoving.running.store(false, ordering: .relaxed)
        print("removed \(leaving.count) in \(String(format: "%.1f", (ContinuousClock.now - start).seconds)) s; longest removal \(String(format: "%.1f", longest.seconds * 1e3)) ms")
    }
    let writesStart = ContinuousClock.now
    removing.start()
    let during = reads.run(
        until: { !stillRemoving.running.load(ordering: .relaxed) && board.textCompactions > compactionsBefore && !board.isCompactingTexts },
        limit: .seconds(900))
    print(during.row("posts leaving, then chunks emptied"))
    print("compaction finished \(String(format: "%.1f", (ContinuousClock.now - writesStart).seconds)) s after the first removal; compactions: \(board.textCompactions - compactionsBefore)")
    // The loader's next tick hands the chunks given back to the system.
    try? await Task.sleep(for: .seconds(1))
    ticking.running.store(false, ordering: .relaxed)
    print("resident after: \(residentBytes() - residentEmpty) B for \(board.postCount) posts")
}

final class RunningFlag: Sendable {
    let running = Atomic(true)
}

/// Reads due every millisecond, each timed from when it was due.
struct ScheduledReads: Sendable {
    let board: Board
    static let interval = Duration.milliseconds(1)

    struct Latencies {
        var nanoseconds: [Int] = []

        func row(_ phase: String) -> String {
            let sorted = nanoseconds.sorted()
            func at(_ q: Double) -> String {
                guard !sorted.isEmpty else { return "–" }
                return String(format: "%.3f ms", Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]) / 1e6)
            }
            return "| \(phase) | \(sorted.count) | \(at(0.5)) | \(at(0.99)) | \(at(0.999)) | \(at(1)) |"
        }
    }

    func run(for duration: Duration) -> Latencies {
        let end = ContinuousClock.now + duration
        return run(until: { ContinuousClock.now >= end }, limit: duration)
    }

    func run(until done: () -> Bool, limit: Duration) -> Latencies {
        var latencies = Latencies()
        var random = SeededGenerator(seed: 41)
        let start = ContinuousClock.now
        var due = start
        var checked = 0
        while ContinuousClock.now - start < limit {
            checked += 1
            if checked % 256 == 0, done() { break }
            let now = ContinuousClock.now
            if now < due { Thread.sleep(forTimeInterval: (due - now).seconds) }
            let update = try! WalkUpdate(json: .object([
                "lat": .number(GeneratedPosts.city.lat + random.uniform(-0.2, 0.2)),
                "lon": .number(GeneratedPosts.city.lon + random.uniform(-0.2, 0.2)), "radius": .number(100),
            ]))
            _ = board.walkView(update)
            latencies.nanoseconds.append(Int((ContinuousClock.now - due).seconds * 1e9))
            due += Self.interval
        }
        return latencies
    }
}

/// A store whose posts are made up on the fly: a load streams them without holding them.
struct GeneratedPosts: PostStore {
    let count: Int
    static let city = (lat: 22.30, lon: 114.17)

    /// The same post for the same id, in the city nine times in ten, 40–200 bytes of text.
    static func post(_ id: Int64) -> Post {
        var random = SeededGenerator(seed: UInt64(id))
        let inCity = random.uniform(0, 1) < 0.9
        let lat = inCity ? city.lat + random.uniform(-0.25, 0.25) : random.uniform(-80, 80)
        let lon = inCity ? city.lon + random.uniform(-0.25, 0.25) : random.uniform(-180, 180)
        let length = 40 + Int(random.next() % 161)
        let message = "note \(id) " + String(repeating: "abcdefghij", count: length / 10)
        return Post(
            id: id, lat: lat, lon: lon, heading: nil, message: message, tag: "t\(id % 20)", createdAt: 1_700_000_000_000 + id,
            accuracy: nil, floor: nil, beacon: nil)
    }

    func create(_ draft: PostDraft, clientHash: String?, idempotency: IdempotencyRequest?) async throws -> CreateOutcome {
        throw StoreError.unavailable("a generated board takes no posts")
    }
    func existingPost(for idempotency: IdempotencyRequest) async throws -> CreateOutcome? { nil }
    func forEachVisiblePost(_ body: (Post, Int64) throws -> Void) async throws {
        for id in 1...Int64(count) { try body(Self.post(id), 1) }
    }
    func isReachable() async -> Bool { true }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
