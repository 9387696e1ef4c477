import Foundation
import BoardTestSupport
import NoticeBoardCore
import Synchronization

/// `noticeboard-bench compaction POSTS [RATE=2000] [SECONDS=20]`: reads while the message texts
/// are compacted. A board of POSTS notes is loaded; posts are taken out one by one (each a change
/// as the change feed applies it), at full speed until the garbage in the text arena is just
/// short of starting a compaction, then RATE a second for SECONDS, which starts one, moved on by
/// the loader's tick as in the server. A reader thread asks a walker's view (100 m) every
/// millisecond on a fixed schedule, each read timed from when it was due, so a read held up
/// behind the write lock makes the ones after it late too. Prints the reads' latency with no
/// writes and in the paced window, the longest removal there, when the compaction ended, memory.
func runCompactionBenchmark(_ arguments: [String]) async {
    guard arguments.count >= 3, let postCount = Int(arguments[2]) else {
        print("usage: noticeboard-bench compaction POSTS [RATE=2000] [SECONDS=20]")
        exit(2)
    }
    let rate = arguments.count > 3 ? Int(arguments[3])! : 2000
    let window = Duration.seconds(arguments.count > 4 ? Int(arguments[4])! : 20)
    let board = Board(store: GeneratedPosts(count: postCount))
    let residentEmpty = residentBytes()
    let loadStart = ContinuousClock.now
    try! await board.load()
    print("posts: \(board.postCount), load: \(String(format: "%.1f", (ContinuousClock.now - loadStart).seconds)) s, resident \(residentBytes() - residentEmpty) B")

    var random = SeededGenerator(seed: 40)
    var leaving = Array(1...Int64(postCount))
    leaving.shuffle(using: &random)
    // Garbage must pass 32 MiB and the live bytes to start a compaction: stop 1 MiB short.
    var next = 0
    while board.textBytes.garbage < board.textBytes.live - (1 << 20), next < leaving.count {
        for id in leaving[next..<min(leaving.count, next + 1000)] { board.reconcile(GeneratedPosts.post(id), status: .hidden, version: 2) }
        next += 1000
    }
    print("removed \(next) at full speed; text live \(board.textBytes.live) B, garbage \(board.textBytes.garbage) B")

    let reads = ScheduledReads(board: board)
    print("| phase | reads | p50 | p99 | p99.9 | max |\n|---|---|---|---|---|---|")
    print(reads.run(for: .seconds(5)).row("no writes"))

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
    let paced = leaving[next...]
    let removing = Thread {
        var longest = Duration.zero
        let start = ContinuousClock.now
        var due = start
        var removed = 0
        var ended: Duration?
        for id in paced where ContinuousClock.now - start < window {
            let now = ContinuousClock.now
            if now < due { Thread.sleep(forTimeInterval: (due - now).seconds) }
            let began = ContinuousClock.now
            board.reconcile(GeneratedPosts.post(id), status: .hidden, version: 2)
            longest = max(longest, ContinuousClock.now - began)
            removed += 1
            due += .seconds(1) / rate
            if ended == nil, board.textCompactions > compactionsBefore { ended = ContinuousClock.now - start }
        }
        let endedText = ended.map { String(format: "%.1f s", $0.seconds) } ?? "not within the window"
        print("paced: removed \(removed) at \(rate)/s; longest removal \(String(format: "%.1f", longest.seconds * 1e3)) ms; compaction ended \(endedText)")
    }
    removing.start()
    print(reads.run(for: window).row("\(rate) removals/s, a compaction starting"))
    try? await Task.sleep(for: .seconds(1))
    // The loader's next tick hands the chunks given back to the system.
    while board.isCompactingTexts { try? await Task.sleep(for: .milliseconds(250)) }
    try? await Task.sleep(for: .seconds(1))
    ticking.running.store(false, ordering: .relaxed)
    print("compactions: \(board.textCompactions - compactionsBefore); resident after: \(residentBytes() - residentEmpty) B for \(board.postCount) posts")
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
