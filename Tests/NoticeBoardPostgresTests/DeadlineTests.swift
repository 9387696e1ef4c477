import NoticeBoardCore
import Synchronization
import Testing

@testable import NoticeBoardPostgres

/// Database deadlines end: the caller gets 503 in time, the work is cancelled then, a cancelled
/// caller cancels the work.
@Suite(.timeLimit(.minutes(5))) struct DeadlineTests {
    @Test func workPastTheDeadlineIsUnavailableAndCancelled() async throws {
        let cancelled = Flag()
        let clock = ContinuousClock()
        let started = clock.now
        await #expect(throws: StoreError.self) {
            try await StoreErrors.bounded(deadline: .milliseconds(200)) {
                do {
                    try await Task.sleep(for: .seconds(600))
                } catch {
                    cancelled.set()
                    throw error
                }
            }
        }
        #expect(clock.now - started < .seconds(60), "far sooner than the work would end")
        #expect(await cancelled.becomesSet(within: .seconds(60)), "the work went on after the deadline")
    }

    @Test func aCancelledCallerCancelsTheWork() async throws {
        let cancelled = Flag()
        let caller = Task {
            try await StoreErrors.bounded(deadline: .seconds(600)) {
                do {
                    try await Task.sleep(for: .seconds(600))
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
        #expect(clock.now - started < .seconds(60), "far sooner than the work would end")
        #expect(await cancelled.becomesSet(within: .seconds(60)))
    }

    @Test func fastWorkAnswersWithItsResult() async throws {
        #expect(try await StoreErrors.bounded(deadline: .seconds(5)) { 42 } == 42)
        await #expect(throws: StoreError.idempotencyConflict) {
            try await StoreErrors.bounded(deadline: .seconds(5)) { () async throws -> Int in throw StoreError.idempotencyConflict }
        }
    }

    @Test func theWatchExpiresWhatIsDueAndNothingCancelled() async throws {
        let watch = DeadlineWatch(resolution: .milliseconds(10))
        let due = Flag()
        let cancelledOne = Flag()
        let later = Flag()
        let now = ContinuousClock.now
        _ = watch.watch(until: now + .milliseconds(50)) { due.set() }
        let cancelled = watch.watch(until: now + .milliseconds(50)) { cancelledOne.set() }
        let longOne = watch.watch(until: now + .seconds(600)) { later.set() }
        watch.cancel(cancelled)
        #expect(await due.becomesSet(within: .seconds(60)))
        #expect(ContinuousClock.now - now >= .milliseconds(50), "not before its deadline")
        try await Task.sleep(for: .milliseconds(100))
        #expect(!cancelledOne.isSet, "a cancelled deadline never fires")
        #expect(!later.isSet, "a deadline not yet due does not fire")
        #expect(watch.watching == 1)
        watch.cancel(longOne)
        #expect(watch.watching == 0)
    }

    @Test func theWatchSleepsWhenNothingIsWatchedAndWakesForTheNext() async throws {
        let watch = DeadlineWatch(resolution: .milliseconds(10))
        let first = Flag()
        _ = watch.watch(until: .now + .milliseconds(20)) { first.set() }
        #expect(await first.becomesSet(within: .seconds(60)))
        #expect(watch.watching == 0)
        try await Task.sleep(for: .milliseconds(100))
        let second = Flag()
        _ = watch.watch(until: .now + .milliseconds(20)) { second.set() }
        #expect(await second.becomesSet(within: .seconds(60)), "a watch started after the ticker stopped still fires")
    }

    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .relaxed) }
        var isSet: Bool { value.load(ordering: .relaxed) }

        func becomesSet(within limit: Duration) async -> Bool {
            let deadline = ContinuousClock.now + limit
            while !isSet, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
            return isSet
        }
    }
}
