import Dispatch
import Logging
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes shutdown end by a deadline whatever a service does: armed by the first SIGTERM or
/// SIGINT, it waits on a thread of its own (no Swift task, no event loop: the stuck shutdown of
/// issue 37 was a task awaiting something never resumed), and at the deadline logs which
/// services still run, runs `onExpiry` (stopping the embedded cluster this process owns, for at
/// most 10 s) and exits with status 1. A shutdown that finishes in time never hears of it.
public final class ShutdownWatchdog: Sendable {
    /// Beyond `--shutdown-timeout` (busy connections), what the other services may take.
    public static let grace = Duration.seconds(5)
    /// How long a service may take once told to stop before it is cancelled.
    public static let serviceDeadline = Duration.seconds(2)
    static let serverName = "HTTP server"
    /// What `onExpiry` (stopping the cluster) may take before the process leaves without it.
    static let cleanupLimitSeconds = 10

    public let deadline: Duration
    let logger: Logger
    let onExpiry: @Sendable (_ stillRunning: [String]) -> Void
    let terminate: @Sendable (Int32) -> Void
    private let queue = DispatchQueue(label: "noticeboard.shutdown-watchdog")
    private let state = Mutex(State())

    enum Phase: String { case running, stopping, finished }

    struct State {
        var services: [(name: String, phase: Phase)] = []
        var details: [String: @Sendable () -> String] = [:]
        var armed = false
    }
    /// Kept so the sources live as long as the watchdog; set once, before shutdown can begin.
    private nonisolated(unsafe) var signalSources: [any DispatchSourceSignal] = []

    public init(
        deadline: Duration, logger: Logger, onExpiry: @escaping @Sendable (_ stillRunning: [String]) -> Void = { _ in },
        terminate: @escaping @Sendable (Int32) -> Void = ShutdownWatchdog.exitNow
    ) {
        self.deadline = deadline
        self.logger = logger
        self.onExpiry = onExpiry
        self.terminate = terminate
    }

    /// Leaves at once: atexit handlers could wait on the very threads that are stuck.
    public static func exitNow(_ status: Int32) {
        fflush(nil)
        _exit(status)
    }

    /// Arms on SIGTERM and SIGINT, the signals that start the graceful shutdown (ServiceLifecycle
    /// listens to them too: a dispatch signal source tells every source of its signal).
    public func armOnSignals() {
        signalSources = [SIGTERM, SIGINT].map { signal in
            let source = DispatchSource.makeSignalSource(signal: signal, queue: queue)
            source.setEventHandler { [weak self] in self?.arm() }
            source.resume()
            return source
        }
    }

    /// Starts the countdown (once).
    public func arm() {
        let first = state.withLock { state in
            defer { state.armed = true }
            return !state.armed
        }
        guard first else { return }
        let (seconds, attoseconds) = deadline.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in expire() }
    }

    /// The services' names in shutdown order, each with its own deadline, and the HTTP server
    /// (which Hummingbird runs after them and stops first); `describe` adds a detail to its line.
    func watch(_ services: [any Service], server describe: @escaping @Sendable () -> String) -> [any Service] {
        var seen: [String: Int] = [:]
        let watched = services.map { service in
            let type = String(describing: Swift.type(of: service))
            seen[type, default: 0] += 1
            return WatchedService(base: service, name: seen[type]! > 1 ? "\(type) #\(seen[type]!)" : type, watchdog: self)
        }
        state.withLock { state in
            state.services = [(Self.serverName, .running)] + watched.reversed().map { ($0.name, .running) }
            state.details[Self.serverName] = describe
        }
        return watched + [ServerStoppedMarker(watchdog: self)]
    }

    func update(_ name: String, _ phase: Phase) {
        state.withLock { state in
            if let index = state.services.firstIndex(where: { $0.name == name && $0.phase != .finished }) { state.services[index].phase = phase }
        }
    }

    /// What has not finished, in shutdown order, with its phase and details.
    var stillRunning: [String] {
        state.withLock { state in
            state.services.filter { $0.phase != .finished }.map { service in
                let detail = state.details[service.name].map { ", \($0())" } ?? ""
                return "\(service.name) (\(service.phase.rawValue)\(detail))"
            }
        }
    }

    private func expire() {
        let running = stillRunning
        logger.critical(
            "shutdown did not finish within its deadline; exiting anyway",
            metadata: ["deadline": "\(deadline)", "still_running": "\(running.isEmpty ? "nothing (stopping the embedded PostgreSQL)" : running.joined(separator: "; "))"])
        // The cleanup is bounded too: `pg_ctl stop` waits on a frozen postmaster for a minute.
        let cleaned = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { [onExpiry] in
            onExpiry(running)
            cleaned.signal()
        }
        if cleaned.wait(timeout: .now() + .seconds(Self.cleanupLimitSeconds)) == .timedOut {
            logger.critical("the cleanup did not finish in time; exiting without it", metadata: ["limit": "\(Self.cleanupLimitSeconds) s"])
        }
        terminate(1)
    }
}

/// Told to stop right after the HTTP server has stopped (it comes just before the server in the
/// service list, and services stop in reverse), so the watchdog knows the server is done.
struct ServerStoppedMarker: Service, CustomStringConvertible {
    let watchdog: ShutdownWatchdog
    var description: String { "ServerStoppedMarker" }

    func run() async throws {
        try? await gracefulShutdown()
        watchdog.update(ShutdownWatchdog.serverName, .finished)
    }
}
