import Logging
import NoticeBoardCore
import Synchronization

/// Delivered outcomes written together: while one batch commits, the deliveries that end
/// meanwhile gather for the next (as a database groups commits), so a busy sender writes one
/// transaction for many deliveries and an idle one still writes each at once. The sender does
/// not wait for the commit, so a host's slot is free again as soon as its call returns; it
/// waits only while `maxQueued` outcomes are unwritten. A batch that cannot be written leaves
/// its deliveries leased: they are sent again when the lease runs out (at least once).
final class DeliveredBatch: Sendable {
    static let maxBatch = 256
    static let maxQueued = 1024

    private struct Queue {
        var deliveries: [ClaimedDelivery] = []
        var writing = false
    }

    private let store: any OutboxStore
    private let logger: Logger
    private let queue = Mutex(Queue())

    init(store: any OutboxStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Outcomes queued and not yet committed.
    var unwritten: Int { queue.withLock { $0.deliveries.count } }

    func record(_ delivery: ClaimedDelivery) async {
        while true {
            let (queued, leads) = queue.withLock { queue -> (Bool, Bool) in
                guard queue.deliveries.count < Self.maxQueued else { return (false, false) }
                queue.deliveries.append(delivery)
                defer { queue.writing = true }
                return (true, !queue.writing)
            }
            if leads { Task { await self.writeUntilEmpty() } }
            if queued { return }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits (at most `limit`) until every queued outcome is written, at shutdown.
    func drain(within limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while queue.withLock({ $0.writing }), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
    }

    private func writeUntilEmpty() async {
        while true {
            let batch = queue.withLock { queue in
                let batch = Array(queue.deliveries.prefix(Self.maxBatch))
                queue.deliveries.removeFirst(batch.count)
                if batch.isEmpty { queue.writing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                try await store.recordDelivered(batch)
            } catch {
                logger.warning("recording deliveries failed; they are sent again after their lease", metadata: ["count": "\(batch.count)", "error": "\(error)"])
            }
        }
    }
}
