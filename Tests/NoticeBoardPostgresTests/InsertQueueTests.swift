import DatabaseTestSupport
import NoticeBoardCore
import PostgresNIO
import Testing

@testable import NoticeBoardPostgres

/// Posts and the batch statement in flight: one still waiting at its deadline is answered 503 and
/// never written; one whose caller gives up is answered at once and never written; the post in a
/// statement that does not end is answered at its deadline all the same; a caller who gives up
/// while its post is in a statement is answered at once.
@Suite(.timeLimit(.minutes(5))) struct InsertQueueTests {
    @Test func waitingPostsEndAtTheirDeadlineOrTheirCallerAndAreNotWritten() async throws {
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            let pool = DatabasePool(client)
            let batcher = PostInsertBatcher(client: pool, logger: TestDatabase.logger, deadline: .seconds(2))
            // Holds the table so the first post's statement waits; the others queue behind it.
            let lock = try await TableLock(holding: "posts", on: client)
            func draft(_ message: String) -> PostDraft { PostDraft(lat: 1, lon: 2, heading: nil, message: message, tag: "food") }
            let inFlight = Task { try await batcher.insert(draft("in flight"), clientHash: nil) }
            try await Self.waitForABlockedInsert(client)
            let clock = ContinuousClock()
            let started = clock.now
            let timedOut = Task { try await batcher.insert(draft("waited too long"), clientHash: nil) }
            let givenUp = Task { try await batcher.insert(draft("given up"), clientHash: nil) }
            try await Task.sleep(for: .milliseconds(50))
            givenUp.cancel()
            await #expect(throws: CancellationError.self) { try await givenUp.value }
            #expect(clock.now - started < .milliseconds(1900), "the caller who gave up was answered before the deadline")
            await #expect(throws: StoreError.self) { try await timedOut.value }
            #expect(clock.now - started < .seconds(15), "the deadline ended the wait, not the statement")
            // The post in the blocked statement is answered at its own deadline too, and
            // one that joins the statement's queue after it is answered when its caller gives up.
            await #expect(throws: StoreError.self) { try await inFlight.value }
            #expect(clock.now - started < .seconds(15), "a post in a stuck statement is answered at its deadline")
            try await lock.release()
            // The statement goes on once the table is free; its caller has been answered already.
            var stored: [String] = []
            let patience = ContinuousClock.now + .seconds(30)
            while stored.isEmpty, ContinuousClock.now < patience {
                try await Task.sleep(for: .milliseconds(50))
                stored = []
                for try await message in try await client.query("SELECT message FROM posts ORDER BY id", logger: TestDatabase.logger).decode(String.self) {
                    stored.append(message)
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            stored = []
            for try await message in try await client.query("SELECT message FROM posts ORDER BY id", logger: TestDatabase.logger).decode(String.self) {
                stored.append(message)
            }
            #expect(stored == ["in flight"], "only the post that was in a statement is stored (unacknowledged)")
            // The queue goes on after abandoned posts (a few tries: the suite runs in parallel).
            var next: Post?
            for _ in 1...10 where next == nil { next = try? await batcher.insert(draft("after"), clientHash: nil) }
            #expect(next?.message == "after", "the queue goes on after abandoned posts")
        }
    }

    @Test func aCallerWhoGivesUpWhileItsPostIsInAStatementIsAnsweredAtOnce() async throws {
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            let batcher = PostInsertBatcher(client: DatabasePool(client), logger: TestDatabase.logger, deadline: .seconds(60))
            let lock = try await TableLock(holding: "posts", on: client)
            let inStatement = Task { try await batcher.insert(PostDraft(lat: 1, lon: 2, heading: nil, message: "in a statement", tag: "food"), clientHash: nil) }
            try await Self.waitForABlockedInsert(client)
            let clock = ContinuousClock()
            let started = clock.now
            inStatement.cancel()
            await #expect(throws: CancellationError.self) { try await inStatement.value }
            #expect(clock.now - started < .seconds(2), "answered at once, not when the statement ends")
            try await lock.release()
        }
    }

    /// A table held in ACCESS EXCLUSIVE mode by another transaction until `release()`.
    struct TableLock {
        let unlock: AsyncStream<Void>.Continuation
        let holder: Task<Void, any Error>

        init(holding table: String, on client: PostgresClient) async throws {
            let (released, release) = AsyncStream.makeStream(of: Void.self)
            let (locked, lockTaken) = AsyncStream.makeStream(of: Void.self)
            holder = Task {
                try await client.withTransaction(logger: TestDatabase.logger) { connection in
                    try await connection.query("LOCK TABLE \(unescaped: table) IN ACCESS EXCLUSIVE MODE", logger: TestDatabase.logger)
                    lockTaken.yield()
                    for await _ in released { break }
                }
            }
            unlock = release
            for await _ in locked { break }
        }

        func release() async throws {
            unlock.yield()
            try await holder.value
        }
    }

    /// Until the batch statement is waiting for the table's lock (so the post is in it).
    static func waitForABlockedInsert(_ client: PostgresClient) async throws {
        let patience = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < patience {
            let rows = try await client.query(
                """
                SELECT count(*)::int8 FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO posts%'
                """, logger: TestDatabase.logger)
            for try await count in rows.decode(Int64.self) where count > 0 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the insert never reached the locked table")
    }
}
