import Logging
import Metrics

/// Follows the database's change feed and reconciles the index with every change another
/// instance (or `noticeboard import`) commits. A writer's announcement wakes it at once; a tick
/// every half second catches up anyway, so a lost announcement or connection costs at most that.
/// Where announcements are not heard (changes read from a hot standby) it ticks ten times a second.
/// Catch-ups are at least `spacing` apart: under a write load announcements come hundreds of times
/// a second, and one query for each cost the database more than the writes it reported.
/// A page that fails (one too large to read within the store's deadline on a busy machine, after
/// an import) is asked again a quarter as large, and pages grow back after each success.
struct ChangeFollower: Sendable {
    let board: Board
    let feed: any ChangeFeed
    let logger: Logger
    var pageSize = 10_000
    var smallestPage = 100
    var tick: Duration = .milliseconds(500)
    var pollingTick: Duration = .milliseconds(100)
    var spacing: Duration = .milliseconds(20)

    func run(after start: Int64) async throws {
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let hears = feed.hearsAnnouncements
        let tick = hears ? tick : pollingTick
        try await withThrowingTaskGroup(of: Void.self) { group in
            if hears {
                group.addTask {
                    while !Task.isCancelled {
                        do {
                            try await feed.listen { wake.yield() }
                        } catch {
                            logger.debug("change notifications interrupted; reconnecting", metadata: ["error": "\(error)"])
                        }
                        try await Task.sleep(for: .seconds(1))
                    }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try await Task.sleep(for: tick)
                    wake.yield()
                }
            }
            group.addTask {
                // Changes are needed only until every instance has seen them; a day is plenty. Apart
                // from the tick, so a long delete never holds up catching up.
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(3600))
                    try? await feed.prune(olderThanHours: 24)
                }
            }
            group.addTask {
                let clock = ContinuousClock()
                let origin = clock.now
                var cursor = ChangeCursor(after: start)
                var page = pageSize
                for await _ in wakeups {
                    do {
                        try await catchUp(&cursor, pageSize: &page, now: { (clock.now - origin).milliseconds / 1000 })
                    } catch {
                        page = max(smallestPage, page / 4)
                        logger.warning("change feed unavailable; retrying", metadata: ["error": "\(error)", "page": "\(page)"])
                    }
                    try await Task.sleep(for: spacing)
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Applies every new change, a page at a time; each page read grows the next (up to `pageSize`).
    /// This process's own changes were applied when it made them: only one whose version the
    /// board lacks (made, but not applied here, as when its request ended at the commit) is read
    /// in full and applied.
    func catchUp(_ cursor: inout ChangeCursor, pageSize: inout Int, now: () -> Double) async throws {
        var after = cursor.watermark
        while true {
            let limit = pageSize
            let page = try await feed.changes(after: after, limit: limit, ownInFull: false)
            pageSize = min(self.pageSize, limit * 2)
            let fresh = page.filter { cursor.isNew($0.sequence) }
            let unapplied = board.unappliedOwnChanges(fresh)
            var inFull: [Int64: PostChange] = [:]
            if let first = unapplied.min(), let last = unapplied.max() {
                for case .change(let change) in try await feed.changes(after: first - 1, limit: Int(last - first) + 1, ownInFull: true)
                where unapplied.contains(change.sequence) {
                    inFull[change.sequence] = change
                }
            }
            var applied = 0
            for entry in fresh {
                switch entry {
                case .change(let change): apply(change)
                case .own(let sequence, _, _):
                    guard let change = inFull[sequence] else { continue }
                    apply(change)
                }
                applied += 1
            }
            cursor.applied(page.map(\.sequence), now: now())
            if applied > 0 { Counter(label: "noticeboard_changes_applied_total").increment(by: applied) }
            guard page.count == limit, let last = page.last?.sequence else { return }
            after = last
        }
    }

    private func apply(_ change: PostChange) {
        board.reconcile(change.post, status: change.status, version: change.version)
        if change.status == .visible {
            if let reply = change.reply { board.announce(reply, on: change.post) }
            if let id = change.removedReplyId { board.announceRemoval(ofReply: id, on: change.post) }
        }
    }
}
