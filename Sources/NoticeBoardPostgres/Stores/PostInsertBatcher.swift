import Logging
import NoticeBoardCore
import PostgresNIO
import Synchronization

/// Posts without an idempotency key, written many to a statement: those that arrive while an
/// insert is in flight wait for the next one, which writes them all and commits once. Under
/// load this is group commit done by the application, so PostgreSQL does one commit (and one
/// run of the change trigger) for a batch rather than one per post; alone, a post still goes in
/// at once. Every caller is answered only after its batch has committed.
final class PostInsertBatcher: Sendable {
    static let maxBatch = 256
    /// Statements in flight at once: while one commits, the next batch gathers. One beat two or
    /// four at 16 and 64 connections: fewer, larger batches cost PostgreSQL and the client less.
    static let maxInFlight = 1
    /// Posts that may wait for a statement; past this the post is refused at once (503).
    static let maxWaiting = 10_000

    private struct Waiting: Sendable {
        let ticket: UInt64
        let draft: PostDraft
        let clientHash: String?
        let continuation: CheckedContinuation<Post, any Error>
        let watch: UInt64
    }

    private struct State {
        var queue: [Waiting] = []
        var inFlight = 0
        var lastTicket: UInt64 = 0
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

    /// A post waits for a statement within the store's deadline, and the statement has its own:
    /// a caller whose post is still waiting at its deadline, or who gives up, is answered at once
    /// and the post is not written; once in a statement, the post is answered with its outcome.
    /// (The deadline is kept by `DeadlineWatch`, not a task per post.)
    func insert(_ draft: PostDraft, clientHash: String?) async throws -> Post {
        let ticket = state.withLock { state in
            state.lastTicket &+= 1
            return state.lastTicket
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard !Task.isCancelled else { return continuation.resume(throwing: CancellationError()) }
                let watch = DeadlineWatch.shared.watch(until: .now + deadline) { [self, deadline] in
                    abandon(ticket, with: StoreError.unavailable("no answer from the database within \(deadline)"))
                }
                enum Admission { case queued, startsWriter, full }
                let admission = state.withLock { state -> Admission in
                    guard state.queue.count < Self.maxWaiting else { return .full }
                    state.queue.append(Waiting(ticket: ticket, draft: draft, clientHash: clientHash, continuation: continuation, watch: watch))
                    guard state.inFlight < Self.maxInFlight else { return .queued }
                    state.inFlight += 1
                    return .startsWriter
                }
                switch admission {
                case .full:
                    DeadlineWatch.shared.cancel(watch)
                    continuation.resume(throwing: StoreError.unavailable("too many posts are waiting to be stored; retry shortly"))
                case .startsWriter: Task { await self.writeWhileWaiting() }
                case .queued: break
                }
            }
        } onCancel: {
            abandon(ticket, with: CancellationError())
        }
    }

    /// Answers a post that is still waiting with `error` and forgets it; one already in a
    /// statement is left to that statement's outcome.
    private func abandon(_ ticket: UInt64, with error: any Error) {
        let waiting = state.withLock { state -> Waiting? in
            guard let index = state.queue.firstIndex(where: { $0.ticket == ticket }) else { return nil }
            return state.queue.remove(at: index)
        }
        if let waiting {
            DeadlineWatch.shared.cancel(waiting.watch)
            waiting.continuation.resume(throwing: error)
        }
    }

    private func writeWhileWaiting() async {
        while true {
            let batch = state.withLock { state -> [Waiting] in
                let batch = Array(state.queue.prefix(Self.maxBatch))
                state.queue.removeFirst(batch.count)
                if batch.isEmpty { state.inFlight -= 1 }
                return batch
            }
            guard !batch.isEmpty else { return }
            for waiting in batch { DeadlineWatch.shared.cancel(waiting.watch) }
            do {
                let posts = try await write(batch)
                for (waiting, post) in zip(batch, posts) { waiting.continuation.resume(returning: post) }
            } catch {
                for waiting in batch { waiting.continuation.resume(throwing: error) }
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
