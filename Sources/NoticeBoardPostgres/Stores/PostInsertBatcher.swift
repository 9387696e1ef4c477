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
    /// Statements in flight at once: one may be committing while the next is sent.
    static let maxInFlight = 2
    /// Posts that may wait for a statement; past this the post is refused at once (503).
    static let maxWaiting = 10_000

    private struct Waiting: Sendable {
        let draft: PostDraft
        let clientHash: String?
        let continuation: CheckedContinuation<Post, any Error>
    }

    private struct State {
        var queue: [Waiting] = []
        var inFlight = 0
    }

    private let client: DatabasePool
    private let logger: Logger
    private let state = Mutex(State())

    init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Within the store's deadline, waiting included: a caller that gives up gets 503, and its
    /// post may still be stored (unacknowledged, as for any insert that outlives its deadline).
    func insert(_ draft: PostDraft, clientHash: String?) async throws -> Post {
        try await StoreErrors.bounded { [self] in
            try await withCheckedThrowingContinuation { continuation in
                enum Admission { case queued, startsWriter, full }
                let admission = state.withLock { state -> Admission in
                    guard state.queue.count < Self.maxWaiting else { return .full }
                    state.queue.append(Waiting(draft: draft, clientHash: clientHash, continuation: continuation))
                    guard state.inFlight < Self.maxInFlight else { return .queued }
                    state.inFlight += 1
                    return .startsWriter
                }
                switch admission {
                case .full: continuation.resume(throwing: StoreError.unavailable("too many posts are waiting to be stored; retry shortly"))
                case .startsWriter: Task { await self.writeWhileWaiting() }
                case .queued: break
                }
            }
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
