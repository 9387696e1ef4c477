import Metrics
import NIOPosix
import Synchronization

/// Bounds the bcrypt work of logins: at most `slots` checks run at once, on threads of their own
/// (not the pool name lookups use), and the others wait in a line of at most `maxWaiting`, an
/// address the account logged in from before ahead of the rest. Without it a spray of logins
/// took both cores and a moderator's own login waited seconds behind it (issue 37).
public final class BcryptGate: Sendable {
    /// One set of threads for every gate in the process: bcrypt is the only thing they run.
    static let threads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        return pool
    }()

    let slots: Int
    let maxWaiting: Int
    private let state = Mutex(State())
    private let started = Atomic<Int>(0)

    struct State {
        var running = 0
        var vouched: [CheckedContinuation<Void, any Error>] = []
        var others: [CheckedContinuation<Void, any Error>] = []
        var waiting: Int { vouched.count + others.count }
    }

    public init(slots: Int = 2, maxWaiting: Int = 32) {
        self.slots = max(1, slots)
        self.maxWaiting = maxWaiting
    }

    /// Checks started since this gate was made (tests and measurements read it).
    public var checksStarted: Int { started.load(ordering: .relaxed) }

    /// Runs `check` when a slot is free; throws `BcryptGateError.busy` when the line is full.
    func run<T: Sendable>(vouched: Bool, _ check: @escaping @Sendable () -> T) async throws -> T {
        try await acquire(vouched: vouched)
        defer { release() }
        started.wrappingAdd(1, ordering: .relaxed)
        Counter(label: "noticeboard_login_checks_total").increment()
        return try await Self.threads.runIfActive(check)
    }

    private func acquire(vouched: Bool) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            enum Admission { case now, later, refused }
            let admission = state.withLock { state -> Admission in
                if state.running < slots {
                    state.running += 1
                    return .now
                }
                guard state.waiting < maxWaiting else { return .refused }
                if vouched { state.vouched.append(continuation) } else { state.others.append(continuation) }
                return .later
            }
            switch admission {
            case .now: continuation.resume()
            case .later: break
            case .refused: continuation.resume(throwing: BcryptGateError.busy)
            }
        }
    }

    /// Hands the slot straight to the next in line, or frees it.
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if !state.vouched.isEmpty { return state.vouched.removeFirst() }
            if !state.others.isEmpty { return state.others.removeFirst() }
            state.running -= 1
            return nil
        }
        next?.resume()
    }
}

enum BcryptGateError: Error {
    /// More logins wait than the line holds: the client is told to retry shortly.
    case busy
}
