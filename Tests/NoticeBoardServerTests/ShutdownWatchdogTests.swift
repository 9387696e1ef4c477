import Dispatch
import Foundation
import Logging
@testable import NoticeBoardServer
import ServiceLifecycle
import Synchronization
import Testing

/// Issue 37: a service that never stops cannot hold shutdown past the watchdog's deadline; the
/// watchdog names it, runs its cleanup (the embedded cluster's stop) and exits.
@Suite(.timeLimit(.minutes(2))) struct ShutdownWatchdogTests {
    /// Ignores graceful shutdown and cancellation alike for `holdsFor`, as a task awaiting
    /// something never resumed would (for ever, in the issue).
    struct StubbornService: Service {
        let holdsFor: Duration
        func run() async throws {
            try? await gracefulShutdown()
            let seconds = Double(holdsFor.components.seconds)
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { done.resume() }
            }
        }
    }

    final class Expiry: Sendable {
        let reported = Mutex<(stillRunning: [String]?, status: Int32?, at: ContinuousClock.Instant?)>((nil, nil, nil))
    }

    @Test func aServiceThatNeverStopsIsNamedAndTheProcessLeavesAtTheDeadline() async throws {
        let expiry = Expiry()
        // The server stops within a second on an idle machine; 4 s leaves room for a loaded one.
        let watchdog = ShutdownWatchdog(
            deadline: .seconds(4), logger: Logger(label: "watchdog-test"),
            onExpiry: { running in expiry.reported.withLock { $0.stillRunning = running } },
            terminate: { status in expiry.reported.withLock { $0.status = status; $0.at = .now } })
        var app = try await TestApp.make()
        app.services = [StubbornService(holdsFor: .seconds(10))]
        app.watchdog = watchdog
        let armed = Mutex<ContinuousClock.Instant?>(nil)
        try await app.test { _, _ in
            // What SIGTERM does in `serve`: shutdown starts as the test body returns.
            armed.withLock { $0 = .now }
            watchdog.arm()
        }
        let (running, status, at) = expiry.reported.withLock { $0 }
        let started = try #require(armed.withLock { $0 })
        #expect(status == 1, "the watchdog exits with status 1")
        let stillRunning = try #require(running)
        #expect(stillRunning.contains { $0.hasPrefix("StubbornService") }, "\(stillRunning)")
        #expect(!stillRunning.contains { $0.hasPrefix("HTTP server") }, "the server had stopped: \(stillRunning)")
        let firedAfter = try #require(at) - started
        #expect(firedAfter >= .seconds(4) && firedAfter < .seconds(6), "fired after \(firedAfter)")
    }

    @Test func aShutdownInTimeIsNotCutShort() async throws {
        let expiry = Expiry()
        // A deadline no loaded machine reaches: the test is that the watchdog stays quiet.
        let watchdog = ShutdownWatchdog(
            deadline: .seconds(30), logger: Logger(label: "watchdog-test"), terminate: { status in expiry.reported.withLock { $0.status = status } })
        var app = try await TestApp.make()
        app.watchdog = watchdog
        let started = Mutex<ContinuousClock.Instant?>(nil)
        try await app.test { _, _ in
            started.withLock { $0 = .now }
            watchdog.arm()
        }
        let took = ContinuousClock.now - started.withLock { $0! }
        #expect(took < .seconds(30), "the services stopped in \(took)")
        #expect(expiry.reported.withLock { $0.status } == nil, "the watchdog cut a shutdown short")
        #expect(watchdog.stillRunning.isEmpty, "\(watchdog.stillRunning)")
    }
}
