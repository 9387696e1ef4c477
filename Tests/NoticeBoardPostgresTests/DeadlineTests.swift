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
