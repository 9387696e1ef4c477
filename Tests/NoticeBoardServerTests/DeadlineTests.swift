import NoticeBoardCore
import Synchronization
import Testing

@testable import NoticeBoardPostgres
@testable import NoticeBoardServer

/// Database deadlines end: the caller gets 503 in time, the work is cancelled then, a cancelled
/// caller cancels the work; limiters and login throttles forget and back off as they say.
@Suite struct DeadlineTests {
    @Test func workPastTheDeadlineIsUnavailableAndCancelled() async throws {
        let cancelled = Flag()
        let clock = ContinuousClock()
        let started = clock.now
        await #expect(throws: StoreError.self) {
            try await StoreErrors.bounded(deadline: .milliseconds(200)) {
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {
                    cancelled.set()
                    throw error
                }
            }
        }
        #expect(clock.now - started < .seconds(5))
        try await Task.sleep(for: .milliseconds(100))
        #expect(cancelled.isSet, "the work went on after the deadline")
    }

    @Test func aCancelledCallerCancelsTheWork() async throws {
        let cancelled = Flag()
        let caller = Task {
            try await StoreErrors.bounded(deadline: .seconds(30)) {
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {
                    cancelled.set()
                    throw error
                }
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        caller.cancel()
        let clock = ContinuousClock()
        let started = clock.now
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(clock.now - started < .seconds(5))
        try await Task.sleep(for: .milliseconds(100))
        #expect(cancelled.isSet)
    }

    @Test func fastWorkAnswersWithItsResult() async throws {
        #expect(try await StoreErrors.bounded(deadline: .seconds(5)) { 42 } == 42)
        await #expect(throws: StoreError.idempotencyConflict) {
            try await StoreErrors.bounded(deadline: .seconds(5)) { () async throws -> Int in throw StoreError.idempotencyConflict }
        }
    }

    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .relaxed) }
        var isSet: Bool { value.load(ordering: .relaxed) }
    }

    final class FakeClock: Sendable {
        let seconds = Mutex<Double>(0)
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
        var now: @Sendable () -> Double { { self.seconds.withLock { $0 } } }
    }

    @Test func refilledBucketsAreForgotten() {
        let clock = FakeClock()
        let limiter = RateLimiter(ratePerMinute: 60, burst: 2, now: clock.now)
        for client in 0..<20_000 { #expect(limiter.reserve(for: "client \(client)") == .allowed) }
        #expect(limiter.trackedClients == 20_000)
        clock.advance(RateLimiter.sweepInterval + 5)
        #expect(limiter.reserve(for: "one more") == .allowed)
        #expect(limiter.trackedClients == 1, "every bucket had refilled: only the new client is left")
    }

    @Test func loginBackoffDoublesAndASuccessClearsIt() {
        let clock = FakeClock()
        let throttle = LoginThrottle(freeFailures: 3, maxWait: 8, now: clock.now)
        for _ in 0..<2 { throttle.failed(username: "mod") }
        #expect(throttle.retryAfter(username: "mod") == nil, "two failures are free")
        throttle.failed(username: "mod")
        #expect(throttle.retryAfter(username: "mod") == 1)
        clock.advance(1)
        #expect(throttle.retryAfter(username: "mod") == nil, "Retry-After is the true wait")
        throttle.failed(username: "mod")
        #expect(throttle.retryAfter(username: "mod") == 2)
        for _ in 0..<10 { throttle.failed(username: "mod") }
        #expect(throttle.retryAfter(username: "mod") == 8, "the wait is capped")
        #expect(throttle.retryAfter(username: "other") == nil, "accounts are throttled one by one")
        throttle.succeeded(username: "mod")
        #expect(throttle.retryAfter(username: "mod") == nil)
    }
}
