import Logging
import NoticeBoardCore
import PostgresNIO
import Synchronization

/// Posts without an idempotency key, written many to a statement: those that arrive while an
/// insert is in flight wait for the next one, which writes them all and commits once. Under
/// load this is group commit done by the application, so PostgreSQL does one commit (and one
/// run of the change trigger) for a batch rather than one per post; alone, a post still goes in
/// at once. A post is acknowledged only after its batch has committed.
final class PostInsertBatcher: Sendable {
    static let maxBatch = 256
    /// Statements in flight at once: while one commits, the next batch gathers. One beat two or
    /// four at 16 and 64 connections: fewer, larger batches cost PostgreSQL and the client less.
    static let maxInFlight = 1
    /// Posts that may wait for a statement; past this the post is refused at once (503).
    static let maxWaiting = 10_000

    private struct Waiting: Sendable {
        let draft: PostDraft
        let clientHash: String?
        let outcome: FirstOutcome<Post>
    }

    private struct State {
        var queue: [Waiting] = []
        var inFlight = 0
    }

    private let client: DatabasePool
    private let logger: Logger
    private let deadline: Duration
    private let state = Mutex(State())

    init(client: DatabasePool, logger: Logger, deadline: Duration = StoreErrors.deadline) {
        self.client = client
        self.logger = logger
        self.deadline = deadline
    }

    /// Answered by whichever comes first: the post's batch (its row, or its error), the deadline
    /// (503), or the caller giving up. A post still waiting when its caller has been answered is
    /// never written; one already in a statement may be stored unacknowledged, as for any insert
    /// that outlives its deadline. The deadline is kept by `DeadlineWatch`, not a task per post.
    func insert(_ draft: PostDraft, clientHash: String?) async throws -> Post {
        let outcome = FirstOutcome<Post>()
        let watch = DeadlineWatch.shared.watch(until: .now + deadline) { [deadline] in
            outcome.finish(.failure(StoreError.unavailable("no answer from the database within \(deadline)")))
        }
        defer { DeadlineWatch.shared.cancel(watch) }
        return try await withTaskCancellationHandler {
            enum Admission { case queued, startsWriter, full, answered }
            let admission = state.withLock { state -> Admission in
                // Checked under the lock the writer takes posts under: a post whose caller is
                // gone by now is not queued at all.
                guard !outcome.isFinished else { return .answered }
                guard state.queue.count < Self.maxWaiting else { return .full }
                state.queue.append(Waiting(draft: draft, clientHash: clientHash, outcome: outcome))
                guard state.inFlight < Self.maxInFlight else { return .queued }
                state.inFlight += 1
                return .startsWriter
            }
            switch admission {
            case .full: outcome.finish(.failure(StoreError.unavailable("too many posts are waiting to be stored; retry shortly")))
            case .startsWriter: Task { await self.writeWhileWaiting() }
            case .queued, .answered: break
            }
            return try await outcome.value()
        } onCancel: {
            outcome.finish(.failure(CancellationError()))
        }
    }

    private func writeWhileWaiting() async {
        while true {
            // Posts already answered (deadline, caller gone) are dropped here, unwritten: the
            // queue is never searched for them.
            let batch = state.withLock { state -> [Waiting] in
                var batch: [Waiting] = []
                var taken = 0
                for waiting in state.queue {
                    guard batch.count < Self.maxBatch else { break }
                    taken += 1
                    if !waiting.outcome.isFinished { batch.append(waiting) }
                }
                state.queue.removeFirst(taken)
                if batch.isEmpty { state.inFlight -= 1 }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                let posts = try await write(batch)
                for (waiting, post) in zip(batch, posts) { waiting.outcome.finish(.success(post)) }
            } catch {
                for waiting in batch { waiting.outcome.finish(.failure(error)) }
            }
        }
    }

    /// One statement for the batch. Identity values are drawn in the order rows are inserted,
    /// which `ORDER BY n` fixes, so the rows sorted by id line up with the batch; that is
    /// checked rather than trusted.
    private func write(_ batch: [Waiting]) async throws -> [Post] {
        let drafts = batch.map(\.draft)
        let statement = InsertPosts(drafts: drafts, clientHashes: batch.map(\.clientHash))
        let posts = try await StoreErrors.bounded { [self] in try await client.execute(statement, logger: logger) }
        let ordered = posts.sorted { $0.id < $1.id }
        guard ordered.count == drafts.count,
            zip(ordered, drafts).allSatisfy({ post, draft in post.message == draft.message && post.tag == draft.tag && abs(post.lat - draft.lat) < 1e-6 && abs(post.lon - draft.lon) < 1e-6 })
        else {
            logger.error("a batch insert's rows did not line up with its posts", metadata: ["posts": "\(drafts.count)", "rows": "\(posts.count)"])
            throw StoreError.unavailable("the posts were stored but could not be matched to their requests; retry with an idempotency key")
        }
        return ordered
    }
}
