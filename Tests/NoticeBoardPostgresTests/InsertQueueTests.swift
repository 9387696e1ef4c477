import DatabaseTestSupport
import NoticeBoardCore
import PostgresNIO
import Testing

@testable import NoticeBoardPostgres

/// Posts waiting for the batch statement in flight: one still waiting at its deadline is answered
/// 503 and never written; one whose caller gives up is answered at once and never written; the
/// post in flight is answered with its outcome once the statement ends.
@Suite(.timeLimit(.minutes(5))) struct InsertQueueTests {
    @Test func waitingPostsEndAtTheirDeadlineOrTheirCallerAndAreNotWritten() async throws {
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            let pool = DatabasePool(client)
            let batcher = PostInsertBatcher(client: pool, logger: TestDatabase.logger, deadline: .milliseconds(300))
            let (released, release) = AsyncStream.makeStream(of: Void.self)
            let (locked, lockTaken) = AsyncStream.makeStream(of: Void.self)
            // Holds the table so the first post's statement waits; the others queue behind it.
            let holder = Task {
                try await client.withTransaction(logger: TestDatabase.logger) { connection in
                    try await connection.query("LOCK TABLE posts IN ACCESS EXCLUSIVE MODE", logger: TestDatabase.logger)
                    lockTaken.yield()
                    for await _ in released { break }
                }
            }
            for await _ in locked { break }
            func draft(_ message: String) -> PostDraft { PostDraft(lat: 1, lon: 2, heading: nil, message: message, tag: "food") }
            let inFlight = Task { try await batcher.insert(draft("in flight"), clientHash: nil) }
            try await Task.sleep(for: .milliseconds(100))
            let clock = ContinuousClock()
            let started = clock.now
            let timedOut = Task { try await batcher.insert(draft("waited too long"), clientHash: nil) }
            let givenUp = Task { try await batcher.insert(draft("given up"), clientHash: nil) }
            try await Task.sleep(for: .milliseconds(50))
            givenUp.cancel()
            await #expect(throws: CancellationError.self) { try await givenUp.value }
            #expect(clock.now - started < .milliseconds(280), "the caller who gave up was answered before the deadline")
            await #expect(throws: StoreError.self) { try await timedOut.value }
            #expect(clock.now - started < .seconds(3), "the deadline ended the wait, not the statement")
            release.yield()
            try await holder.value
            let post = try await inFlight.value
            #expect(post.message == "in flight")
            var stored: [String] = []
            for try await message in try await client.query("SELECT message FROM posts ORDER BY id", logger: TestDatabase.logger).decode(String.self) {
                stored.append(message)
            }
            #expect(stored == ["in flight"], "only the post that was in a statement is stored")
            let next = try await batcher.insert(draft("after"), clientHash: nil)
            #expect(next.message == "after", "the queue goes on after abandoned posts")
        }
    }
}
