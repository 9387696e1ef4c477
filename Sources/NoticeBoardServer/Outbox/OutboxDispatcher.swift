import Foundation
import Logging
import Metrics
import NoticeBoardCore
import ServiceLifecycle
import Synchronization

/// Turns the board's changes into deliveries: every instance runs one, and whichever holds the
/// dispatch cursor's lock takes each turn, so every change is planned once for the deployment.
/// Queuing is idempotent, and a gap in the change sequence (a transaction still committing) is
/// waited for as the index's follower waits for it.
final class OutboxDispatcher: Service, Sendable {
    static let interval = Duration.milliseconds(200)
    static let batch = 1000

    let store: any OutboxStore
    let board: Board
    let logger: Logger
    /// This instance's view of the changes above the stored watermark while it holds the turns.
    private let cursor = Mutex<ChangeCursor?>(nil)

    init(store: any OutboxStore, board: Board, logger: Logger) {
        self.store = store
        self.board = board
        self.logger = logger
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            // Migrations run before the load: the outbox tables exist once the board is loaded.
            while !self.board.isLoaded, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(100)) }
            var failures = 0
            while !Task.isCancelled {
                do {
                    let result = try await self.turn()
                    failures = 0
                    if let result, result.changesRead == Self.batch { continue }
                } catch {
                    failures += 1
                    if failures == 1 || failures % 50 == 0 { self.logger.warning("dispatching deliveries failed", metadata: ["error": "\(error)"]) }
                }
                try? await Task.sleep(for: failures > 0 ? .seconds(1) : Self.interval)
            }
        }
    }

    func turn() async throws -> DispatchResult? {
        let places = board.places
        // A turn that fails rolls back: what this instance marked as planned must be planned again.
        let result: DispatchResult?
        do {
            result = try await dispatch(places: places)
        } catch {
            cursor.withLock { $0 = nil }
            throw error
        }
        if result == nil { cursor.withLock { $0 = nil } }
        if let result, result.queued > 0 { Counter(label: "noticeboard_deliveries_queued_total").increment(by: result.queued) }
        return result
    }

    private func dispatch(places: PlaceDirectory) async throws -> DispatchResult? {
        try await store.dispatchTurn(limit: Self.batch) { [self] watermark, changes, webhooks, subscriptions in
            let now = Double(Timestamp.nowMilliseconds()) / 1000
            let fresh = cursor.withLock { held -> [PostChange] in
                if held?.watermark != watermark { held = ChangeCursor(after: watermark) }
                let fresh = changes.filter { held!.isNew($0.sequence) }
                held!.applied(changes.map(\.sequence), now: now)
                return fresh
            }
            let matches = DeliveryPlanner.match(
                fresh, webhooks: webhooks, subscriptions: subscriptions, places: places, now: Timestamp.nowMilliseconds())
            let deliveries = matches.created.map { target, post in Self.delivery(of: post, to: target) }
            return DispatchPlan(deliveries: deliveries, removedPosts: matches.removedPosts, watermark: cursor.withLock { $0!.watermark })
        }
    }

    /// The body is fixed now: a retry sends the same bytes, signature and delivery id.
    static func delivery(of post: Post, to target: DeliveryTarget) -> QueuedDelivery {
        let deliveryId = UUID().uuidString.lowercased()
        switch target {
        case .webhook:
            let body = #"{"event":"post.created","deliveryId":""# + deliveryId + #"","post":"# + JSONResponse.encode(PostJSON(post: post)) + "}"
            return QueuedDelivery(target: target, event: .created, postId: post.id, deliveryId: deliveryId, body: Array(body.utf8))
        case .subscription:
            return QueuedDelivery(target: target, event: .push, postId: post.id, deliveryId: deliveryId, body: pushBody(of: post))
        }
    }

    /// `{"post": …}`, its message shortened (and `truncated` set) when the whole would not fit
    /// in one push record.
    static func pushBody(of post: Post) -> [UInt8] {
        var shortened = post
        var body = Array((#"{"post":"# + JSONResponse.encode(PostJSON(post: post)) + "}").utf8)
        var keep = post.message.count
        while body.count > WebPushEncryption.maxPlaintext, keep > 0 {
            keep = keep * 3 / 4
            shortened.message = String(post.message.prefix(keep)) + "…"
            body = Array((#"{"post":"# + JSONResponse.encode(PostJSON(post: shortened)) + #","truncated":true}"#).utf8)
        }
        return body
    }
}
