import ServiceLifecycle

/// A service with its own shutdown deadline: once told to stop it has
/// `ShutdownWatchdog.serviceDeadline`, then it is cancelled; the watchdog hears when it starts
/// stopping and when it has finished, to name it if it never does.
struct WatchedService: Service, CustomStringConvertible {
    let base: any Service
    let name: String
    let watchdog: ShutdownWatchdog
    var description: String { name }

    private enum Outcome { case finished, deadlinePassed, noShutdown }

    func run() async throws {
        watchdog.update(name, .running)
        defer { watchdog.update(name, .finished) }
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask {
                try await base.run()
                return .finished
            }
            group.addTask {
                // Cancelled (the service ended first, or the group is cancelled): no deadline to keep.
                guard (try? await gracefulShutdown()) != nil else { return .noShutdown }
                watchdog.update(name, .stopping)
                guard (try? await Task.sleep(for: ShutdownWatchdog.serviceDeadline)) != nil else { return .noShutdown }
                return .deadlinePassed
            }
            while let outcome = try await group.next() {
                switch outcome {
                case .finished:
                    group.cancelAll()
                    return
                case .deadlinePassed:
                    watchdog.logger.warning(
                        "a service did not stop within its deadline; cancelling it",
                        metadata: ["service": "\(name)", "deadline": "\(ShutdownWatchdog.serviceDeadline)"])
                    group.cancelAll()
                case .noShutdown:
                    continue
                }
            }
        }
    }
}
