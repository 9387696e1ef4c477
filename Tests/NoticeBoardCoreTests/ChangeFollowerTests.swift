import BoardTestSupport
import Foundation
import Testing

@testable import NoticeBoardCore

/// A follower whose pages are too large to read in time (the store's deadline on a busy
/// machine) asks again with smaller ones and still catches up with every change.
@Suite(.timeLimit(.minutes(2))) struct ChangeFollowerTests {
    /// 3 000 changes, and any page above 500 fails as a read past its deadline would.
    struct SlowFeed: ChangeFeed {
        let changes: [PostChange] = (1...3000).map { id in
            PostChange(sequence: Int64(id), post: BoardOrderingTests.post(Int64(id)), status: .visible, version: 1)
        }
        func startingSequence() async throws -> Int64 { 0 }
        func changes(after sequence: Int64, limit: Int) async throws -> [PostChange] {
            guard limit <= 500 else { throw StoreError.unavailable("no answer from the database within 5.0 seconds") }
            return Array(changes.drop { $0.sequence <= sequence }.prefix(limit))
        }
        func listen(wake: @escaping @Sendable () -> Void) async throws { try await Task.sleep(for: .seconds(3600)) }
        var hearsAnnouncements: Bool { true }
        func announce() async throws {}
        func prune(olderThanHours hours: Int) async throws {}
    }

    @Test func pagesTooLargeToReadInTimeShrinkUntilTheFollowerCatchesUp() async throws {
        let board = Board(store: BoardOrderingTests.NoStore())
        let follower = ChangeFollower(
            board: board, feed: SlowFeed(), logger: .init(label: "test"), pageSize: 4000, tick: .milliseconds(20), spacing: .milliseconds(1))
        let following = Task { try await follower.run(after: 0) }
        let deadline = ContinuousClock.now + .seconds(20)
        while board.postCount < 3000, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        following.cancel()
        #expect(board.postCount == 3000, "caught up with \(board.postCount) of 3000 changes")
    }
}
