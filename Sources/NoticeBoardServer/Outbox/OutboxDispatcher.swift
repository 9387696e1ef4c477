import Foundation
import Logging
import Metrics
import NoticeBoardCore
import ServiceLifecycle
import Synchronization

/// Turns the board's changes into deliveries: every instance runs one, and whichever holds the
/// dispatch cursor's lock takes each turn, so every change is planned once for the deployment.
/// Targets are matched through this instance's `DeliveryTargetIndex`, brought up to date from
/// the log of target changes at the start of each turn, in the turn's transaction. Queuing is
/// idempotent, and a gap in the change sequence (a transaction still committing) is read past
/// and waited for as the index's follower does.
final class OutboxDispatcher: Service, Sendable {
    static let interval = Duration.milliseconds(200)
    static let pageSize = 1000
    /// Pages one turn reads at most before it commits what it planned.
    static let pagesPerTurn = 10
    /// A turn is background work: bounded, but not by a request's deadline.
    static let turnDeadline = Duration.seconds(60)
    static let pruneEvery = Duration.seconds(600)

    let store: any OutboxStore
    let board: Board
    let logger: Logger
    /// This instance's view of the changes above the stored watermark while it holds the turns.
    private let cursor = Mutex<ChangeCursor?>(nil)
    /// Every target's interest, and where this instance stands in the log of target changes.
    private let targets = Mutex<(index: DeliveryTargetIndex, log: ChangeCursor)?>(nil)
    private let pruned = Mutex(ContinuousClock.now)
    /// How long a gap in the change sequence is waited for before it is given up as rolled back.
    let gapTimeout: Double

    init(store: any OutboxStore, board: Board, logger: Logger, gapTimeout: Double = 10) {
        self.store = store
        self.board = board
        self.logger = logger
        self.gapTimeout = gapTimeout
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
                    if let result, result.moreWaiting { continue }
                } catch {
                    // Cancelled by shutdown: the turn's error is the shutdown, not a failure to report.
                    if Task.isCancelled { break }
                    failures += 1
                    if failures == 1 || failures % 50 == 0 { self.logger.warning("dispatching deliveries failed", metadata: ["error": "\(error)"]) }
                }
                try? await Task.sleep(for: failures > 0 ? .seconds(1) : Self.interval)
            }
        }
    }

    /// The number of targets this instance knows (for tests and metrics).
    var targetCount: Int { targets.withLock { $0?.index.count ?? 0 } }

    func turn() async throws -> DispatchResult? {
        try await loadTargetsIfNeeded()
        let places = board.places
        // A turn that fails rolls back: what this instance marked as planned must be planned again.
        let result: DispatchResult?
        do {
            result = try await store.withDispatchTurn(deadline: Self.turnDeadline) { [self] turn in try await dispatch(turn, places: places) }
        } catch {
            cursor.withLock { $0 = nil }
            throw error
        }
        if result == nil { cursor.withLock { $0 = nil } }
        if let result, result.queued > 0 { Counter(label: "noticeboard_deliveries_queued_total").increment(by: result.queued) }
        return result
    }

    private func loadTargetsIfNeeded() async throws {
        guard targets.withLock({ $0 == nil }) else { return }
        let (interests, position) = try await store.allInterests()
        targets.withLock { $0 = (DeliveryTargetIndex(interests), ChangeCursor(after: position)) }
        Gauge(label: "noticeboard_outbox_targets").record(interests.count)
    }

    private func dispatch(_ turn: any DispatchTurn, places: PlaceDirectory) async throws -> DispatchResult {
        try await followTargets(turn)
        if ContinuousClock.now - pruned.withLock({ $0 }) >= Self.pruneEvery {
            try await turn.pruneTargetLog()
            pruned.withLock { $0 = .now }
        }
        var queued = try await turn.queueExpiryRemovals()
        // With nothing to deliver to, the changes are passed over in one statement (a million
        // imported posts would otherwise be read a page at a time). A target made later never
        // receives posts made before it, so nothing is lost.
        if targetCount == 0 {
            let latest = try await turn.skipEveryChange()
            cursor.withLock { $0 = ChangeCursor(after: latest, gapTimeout: gapTimeout) }
            return DispatchResult(changesRead: 0, queued: queued, watermark: latest)
        }
        var held = cursor.withLock { held -> ChangeCursor in
            if held?.watermark != turn.watermark { held = ChangeCursor(after: turn.watermark, gapTimeout: gapTimeout) }
            return held!
        }
        var after = held.watermark
        var read = 0
        var moreWaiting = false
        for page in 1...Self.pagesPerTurn {
            let changes = try await turn.changes(after: after, limit: Self.pageSize)
            let fresh = changes.filter { held.isNew($0.sequence) }
            let now = Timestamp.nowMilliseconds()
            let matches = targets.withLock { DeliveryPlanner.match(fresh, targets: $0!.index, places: places, now: now) }
            let deliveries = matches.created.map { target, post in Self.delivery(of: post, to: target) }
                + matches.replies.map { target, reply, post in Self.delivery(of: reply, on: post, to: target) }
            queued += try await turn.queue(deliveries)
            queued += try await turn.queueRemovals(of: matches.removedPosts)
            held.applied(changes.map(\.sequence), now: Double(now) / 1000)
            read += changes.count
            // Past a gap the same page would be read again: read on after it, as the follower does.
            guard changes.count == Self.pageSize, let last = changes.last?.sequence else { break }
            after = last
            moreWaiting = page == Self.pagesPerTurn
        }
        try await turn.storeWatermark(held.watermark)
        let stored = held
        cursor.withLock { $0 = stored }
        return DispatchResult(changesRead: read, queued: queued, watermark: held.watermark, moreWaiting: moreWaiting)
    }

    /// Brings the targets' index up to date with the log of target changes.
    private func followTargets(_ turn: any DispatchTurn) async throws {
        var after = targets.withLock { $0!.log.watermark }
        while true {
            let entries = try await turn.targetChanges(after: after, limit: Self.pageSize)
            let fresh = targets.withLock { held in entries.filter { held!.log.isNew($0.sequence) } }
            let changed = Array(Set(fresh.map(\.target)))
            let current = try await turn.interests(of: changed)
            let now = Double(Timestamp.nowMilliseconds()) / 1000
            targets.withLock { held in
                let present = Set(current.map(\.target))
                for target in changed where !present.contains(target) { held!.index.remove(target) }
                for interest in current { held!.index.upsert(interest) }
                held!.log.applied(entries.map(\.sequence), now: now)
            }
            guard entries.count == Self.pageSize, let last = entries.last?.sequence else { break }
            after = last
        }
        Gauge(label: "noticeboard_outbox_targets").record(targetCount)
    }

    /// The body is fixed now: a retry sends the same bytes, signature and delivery id.
    static func delivery(of post: Post, to target: DeliveryTarget) -> QueuedDelivery {
        let deliveryId = UUID().uuidString.lowercased()
        switch target {
        case .webhook:
            let body = #"{"event":"post.created","deliveryId":""# + deliveryId + #"","post":"# + JSONResponse.encode(PostJSON(post: post)) + "}"
            return QueuedDelivery(target: target, event: .created, postId: post.id, deliveryId: deliveryId, body: Array(body.utf8))
        case .subscription:
            return QueuedDelivery(target: target, event: .push, postId: post.id, deliveryId: deliveryId, body: PushBody.post(post))
        }
    }

    static func delivery(of reply: Reply, on post: Post, to target: DeliveryTarget) -> QueuedDelivery {
        QueuedDelivery(
            target: target, event: .push, postId: post.id, deliveryId: UUID().uuidString.lowercased(), body: PushBody.reply(reply, on: post),
            replyId: reply.id)
    }
}
