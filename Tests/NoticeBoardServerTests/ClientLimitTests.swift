import Synchronization
import Testing

@testable import NoticeBoardServer

/// Limiters and login throttles forget and back off as they say.
@Suite struct ClientLimitTests {
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

    /// One attempt: admitted or not, then finished with its outcome.
    static func attempt(_ throttle: LoginThrottle, from address: String = "a", right: Bool = false) -> Int? {
        if let wait = throttle.admit(username: "mod", address: address) { return wait }
        throttle.finished(username: "mod", address: address, succeeded: right)
        return nil
    }

    @Test func loginBackoffDoublesAndASuccessClearsIt() {
        let clock = FakeClock()
        let throttle = LoginThrottle(freeFailures: 3, maxWait: 8, now: clock.now)
        for _ in 0..<3 { #expect(Self.attempt(throttle) == nil, "three failures are free") }
        #expect(throttle.admit(username: "mod", address: "b") == 1)
        clock.advance(1)
        #expect(Self.attempt(throttle) == nil, "Retry-After is the true wait")
        #expect(throttle.admit(username: "mod", address: "b") == 2)
        for _ in 0..<10 {
            clock.advance(8)
            _ = Self.attempt(throttle)
        }
        #expect(throttle.admit(username: "mod", address: "b") == 8, "the wait is capped")
        #expect(throttle.admit(username: "other", address: "b") == nil, "accounts are throttled one by one")
        clock.advance(8)
        #expect(Self.attempt(throttle, right: true) == nil)
        #expect(Self.attempt(throttle) == nil, "the address of a right password is not held back")
    }

    @Test func guessesFiredTogetherCountFromTheFirstAndPassOneAtATimeInTheBackoff() {
        let clock = FakeClock()
        let throttle = LoginThrottle(freeFailures: 5, maxWait: 8, now: clock.now)
        // Issue 37: 60 addresses at once at an account with no failures yet got 60 checks; those
        // in flight count as failures to come, so only the free five go ahead.
        let admitted = (0..<60).filter { throttle.admit(username: "mod", address: "a\($0)") == nil }
        #expect(admitted.count == 5)
        for address in admitted { throttle.finished(username: "mod", address: "a\(address)", succeeded: false) }
        #expect(throttle.admit(username: "mod", address: "b") == 1, "five failures: the wait has begun")
        clock.advance(1)
        #expect(throttle.admit(username: "mod", address: "b") == nil)
        #expect(throttle.admit(username: "mod", address: "c") == 1, "past the free ones, one at a time")
    }

    @Test func aRightPasswordDoesNotOpenAnotherWaveOfGuesses() {
        let clock = FakeClock()
        let throttle = LoginThrottle(freeFailures: 3, maxWait: 8, now: clock.now)
        for _ in 0..<3 { #expect(Self.attempt(throttle, from: "attacker") == nil) }
        clock.advance(2)
        #expect(Self.attempt(throttle, from: "home", right: true) == nil)
        let wave = (0..<3).filter { throttle.admit(username: "mod", address: "g\($0)") == nil }
        #expect(wave.count == 1, "the moderator's login opened no new wave: one guess at a time")
        for guess in wave { throttle.finished(username: "mod", address: "g\(guess)", succeeded: false) }
        clock.advance(16)
        let later = (0..<3).filter { throttle.admit(username: "mod", address: "h\($0)") == nil }
        #expect(later.count == 3, "the count is forgotten twice the longest wait after the last failure")
    }

    @Test func anAddressThatLoggedInBeforeIsNotLockedOut() {
        let clock = FakeClock()
        let throttle = LoginThrottle(freeFailures: 2, maxWait: 900, now: clock.now)
        #expect(Self.attempt(throttle, from: "home", right: true) == nil)
        for _ in 0..<2 { #expect(Self.attempt(throttle, from: "attacker") == nil) }
        #expect(throttle.admit(username: "mod", address: "attacker") != nil, "the attacker waits")
        #expect(Self.attempt(throttle, from: "home", right: true) == nil, "the moderator's own address does not")
    }
}
