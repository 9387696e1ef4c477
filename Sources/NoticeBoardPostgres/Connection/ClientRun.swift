import Logging
import PostgresNIO
import Synchronization

/// A pool's PostgreSQL client running in a task of its own, so that retiring it or shutting down
/// never waits on its run for longer than a bound: a client whose host vanished mid-call may take
/// as long as it likes to end, and is left behind (cancelled) if it does not end in time.
final class ClientRun: Sendable {
    private let ended = Atomic<Bool>(false)
    private let task = Mutex<Task<Void, Never>?>(nil)

    private init() {}

    /// `onStart` runs in the run's task just before the client's `run()`, so whatever it makes
    /// visible (the client, to callers) is leased only from a running client.
    static func start(_ client: PostgresClient, onStart: @escaping @Sendable () -> Void = {}) -> ClientRun {
        let run = ClientRun()
        run.task.withLock { task in
            task = Task {
                onStart()
                await client.run()
                run.ended.store(true, ordering: .releasing)
            }
        }
        return run
    }

    var hasEnded: Bool { ended.load(ordering: .acquiring) }

    /// Cancels the run and waits at most `limit` for it to end; returns whether it did.
    @discardableResult
    func stop(within limit: Duration) async -> Bool {
        task.withLock { $0?.cancel() }
        let deadline = ContinuousClock.now + limit
        while !hasEnded, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return hasEnded
    }
}
