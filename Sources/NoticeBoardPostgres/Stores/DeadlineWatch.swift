import Synchronization

/// Deadlines for many operations, kept by one sleeping task rather than one timer each: a
/// `Task.sleep` per database call (scheduled on Dispatch's timer thread, then cancelled) cost more
/// CPU than the call itself on a busy write path. Expiry is checked every `resolution`, so an
/// operation may run up to that much past its deadline; the task sleeps only while some
/// deadline is being watched.
final class DeadlineWatch: Sendable {
    static let shared = DeadlineWatch(resolution: .milliseconds(50))

    private struct Entry {
        let deadline: ContinuousClock.Instant
        let expire: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextTicket: UInt64 = 0
        var ticking = false
    }

    let resolution: Duration
    private let state = Mutex(State())

    init(resolution: Duration) {
        self.resolution = resolution
    }

    /// Calls `expire` once `deadline` has passed, unless `cancel` comes first. Returns the
    /// ticket to cancel with.
    func watch(until deadline: ContinuousClock.Instant, expire: @escaping @Sendable () -> Void) -> UInt64 {
        let (ticket, startsTicking) = state.withLock { state -> (UInt64, Bool) in
            state.nextTicket &+= 1
            state.entries[state.nextTicket] = Entry(deadline: deadline, expire: expire)
            defer { state.ticking = true }
            return (state.nextTicket, !state.ticking)
        }
        // Detached: the ticker outlives the call that started it and must not carry its
        // priority or task-locals.
        if startsTicking { Task.detached { await self.tickWhileWatching() } }
        return ticket
    }

    func cancel(_ ticket: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: ticket) }
    }

    var watching: Int { state.withLock { $0.entries.count } }

    private func tickWhileWatching() async {
        while true {
            try? await Task.sleep(for: resolution)
            let now = ContinuousClock.now
            let expired = state.withLock { state -> [Entry]? in
                if state.entries.isEmpty {
                    state.ticking = false
                    return nil
                }
                let due = state.entries.filter { $0.value.deadline <= now }
                for ticket in due.keys { state.entries.removeValue(forKey: ticket) }
                return Array(due.values)
            }
            guard let expired else { return }
            for entry in expired { entry.expire() }
        }
    }
}
