import BoardTestSupport
import CoreTestSupport
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
        func changes(after sequence: Int64, limit: Int, ownInFull: Bool) async throws -> [FeedEntry] {
            guard limit <= 500 else { throw StoreError.unavailable("no answer from the database within 5.0 seconds") }
            return changes.drop { $0.sequence <= sequence }.prefix(limit).map(FeedEntry.change)
        }
        func listen(wake: @escaping @Sendable () -> Void) async throws { try await Task.sleep(for: .seconds(3600)) }
        var hearsAnnouncements: Bool { true }
        func announce() async throws {}
        func prune(olderThanHours hours: Int) async throws {}
    }

    @Test func pagesTooLargeToReadInTimeShrinkUntilTheFollowerCatchesUp() async throws {
        let board = Board(store: UnreachablePostStore())
        let follower = ChangeFollower(
            board: board, feed: SlowFeed(), logger: .init(label: "test"), pageSize: 4000, tick: .milliseconds(20), spacing: .milliseconds(1))
        let following = Task { try await follower.run(after: 0) }
        let deadline = ContinuousClock.now + .seconds(20)
        while board.postCount < 3000, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        following.cancel()
        #expect(board.postCount == 3000, "caught up with \(board.postCount) of 3000 changes")
    }

    /// Changes of this process among others': even ones it applied come as `.own`, and odd ones
    /// it made but never applied (a request that ended at its commit). Reads in full are counted.
    final class MixedFeed: ChangeFeed, @unchecked Sendable {
        let lock = NSLock()
        var fullReads: [ClosedRange<Int64>] = []
        let changes: [PostChange] = (1...400).map { id in
            PostChange(sequence: Int64(id), post: BoardOrderingTests.post(Int64(id)), status: .visible, version: 1)
        }
        static func isOwn(_ sequence: Int64) -> Bool { sequence > 100 }

        func startingSequence() async throws -> Int64 { 0 }
        func changes(after sequence: Int64, limit: Int, ownInFull: Bool) async throws -> [FeedEntry] {
            let page = changes.drop { $0.sequence <= sequence }.prefix(limit)
            if ownInFull, let first = page.first, let last = page.last { lock.withLock { fullReads.append(first.sequence...last.sequence) } }
            return page.map { change in
                !ownInFull && Self.isOwn(change.sequence)
                    ? .own(sequence: change.sequence, postId: change.post.id, version: change.version) : .change(change)
            }
        }
        func listen(wake: @escaping @Sendable () -> Void) async throws { try await Task.sleep(for: .seconds(3600)) }
        var hearsAnnouncements: Bool { true }
        func announce() async throws {}
        func prune(olderThanHours hours: Int) async throws {}
    }

    @Test func ownChangesAreReadInFullOnlyWhenTheBoardLacksThem() async throws {
        let board = Board(store: UnreachablePostStore())
        let feed = MixedFeed()
        // The process applied its even changes when it made them.
        for change in feed.changes where MixedFeed.isOwn(change.sequence) && change.sequence % 2 == 0 {
            board.reconcile(change.post, status: .visible, version: 1)
        }
        let follower = ChangeFollower(board: board, feed: feed, logger: .init(label: "test"), pageSize: 64)
        var cursor = ChangeCursor(after: 0)
        var page = 64
        try await follower.catchUp(&cursor, pageSize: &page, now: { 0 })
        #expect(board.postCount == 400, "\(board.postCount) of 400 posts after catching up")
        #expect(cursor.watermark == 400)
        let readInFull = feed.lock.withLock { feed.fullReads }
        #expect(!readInFull.isEmpty && readInFull.allSatisfy { $0.lowerBound > 100 }, "others' changes were read twice: \(readInFull)")
        #expect(readInFull.reduce(0) { $0 + $1.count } <= 300, "own changes read in full more than once")
        // Caught up: nothing is read in full again.
        let before = readInFull.count
        try await follower.catchUp(&cursor, pageSize: &page, now: { 1 })
        #expect(feed.lock.withLock { feed.fullReads.count } == before)
    }
}
