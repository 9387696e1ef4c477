import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NoticeBoardCore
import ServiceLifecycle
import Synchronization

/// Sends due deliveries: every instance runs one, each claims deliveries under a lease (so one
/// instance sends each, and another takes over what a dead one held), and records how each
/// attempt ended (deliveries that succeed together in one transaction, `DeliveredBatch`). What is
/// claimed waits in memory (at most `maxWaiting` in all, `maxWaitingPerHost` for one host and
/// `maxWaitingPerAnsweringHost` for one that answered promptly within `answerMemory`, each for at
/// most `maxWait`, else it is given back for a little later) for a slot: at most
/// `maxInFlight` calls in all, `maxPerHost` to one host, and `maxPerSlowHost` to a host that took
/// longer than `slowCall` to answer within the last `slowMemory`. A receiver that hangs holds a
/// few slots of its own only, and a push service that answers promptly gets as many as a city's
/// fan-out needs. Every call has a deadline shorter than the lease.
final class OutboxSender: Service, Sendable {
    static let maxInFlight = 128
    static let maxPerHost = 32
    static let maxPerSlowHost = 8
    static let slowCall = Duration.seconds(2)
    static let slowMemory = Duration.seconds(60)
    static let maxWaiting = 512
    static let maxWaitingPerHost = 64
    /// Half the room: the few push services a fan-out goes to keep what is claimed for them
    /// (else most of a claim is given back and claimed again), and a host that stopped
    /// answering still leaves half to the others.
    static let maxWaitingPerAnsweringHost = 256
    static let answerMemory = Duration.seconds(1)
    static let maxRememberedHosts = 1000
    /// Half the lease: a delivery waiting longer is given back while its lease still holds.
    static let maxWait = Duration.seconds(15)
    /// Twice the call's deadline: a delivery held by an instance that died waits this long.
    static let lease = Duration.seconds(30)
    static let callDeadline = TimeAmount.seconds(15)
    static let idleInterval = Duration.milliseconds(200)
    /// When a delivery given back for its busy host is tried again.
    static let busyHostDelay: Int64 = 1000
    /// What a push may wait at the push service for the browser to come online.
    static let pushTTLSeconds = 86_400

    let outbox: OutboxServices
    let logger: Logger
    let http: HTTPClient
    /// Clients for calls pinned to a checked address (push services and webhooks by name).
    let pinned = PinnedClients()
    let delivered: DeliveredBatch
    private let inFlight = Mutex(CallsInFlight())

    struct CallsInFlight {
        var total = 0
        var byHost: [String: Int] = [:]
        /// Claimed for a host at its bound, oldest first, with when each was claimed.
        var waiting: [String: [(ClaimedDelivery, ContinuousClock.Instant)]] = [:]
        var waitingCount = 0
        /// Hosts that answered slowly, until when they count as slow.
        var slowUntil: [String: ContinuousClock.Instant] = [:]
        /// When each host last answered promptly.
        var answeredAt: [String: ContinuousClock.Instant] = [:]

        func bound(of host: String, now: ContinuousClock.Instant = .now) -> Int {
            guard let until = slowUntil[host], until > now else { return OutboxSender.maxPerHost }
            return OutboxSender.maxPerSlowHost
        }

        /// How many deliveries may wait for the host: more while it answers promptly.
        func share(of host: String, now: ContinuousClock.Instant = .now) -> Int {
            guard let answered = answeredAt[host], now - answered <= OutboxSender.answerMemory, bound(of: host, now: now) == OutboxSender.maxPerHost
            else { return OutboxSender.maxWaitingPerHost }
            return OutboxSender.maxWaitingPerAnsweringHost
        }

        /// How long a call to the host took: a slow one lowers the host's bound for a while.
        mutating func took(_ duration: Duration, host: String, now: ContinuousClock.Instant = .now) {
            if duration > OutboxSender.slowCall {
                slowUntil[host] = now + OutboxSender.slowMemory
                answeredAt[host] = nil
                return
            }
            if let until = slowUntil[host], until <= now { slowUntil[host] = nil }
            // Hosts come from subscribers' endpoints: the ones long quiet are forgotten past a bound.
            if answeredAt[host] == nil, answeredAt.count >= OutboxSender.maxRememberedHosts {
                answeredAt = answeredAt.filter { now - $0.value <= OutboxSender.answerMemory }
            }
            answeredAt[host] = now
        }

        mutating func enter(_ host: String) -> Bool {
            guard byHost[host, default: 0] < bound(of: host) else { return false }
            byHost[host, default: 0] += 1
            total += 1
            return true
        }

        /// Keeps a delivery for its busy host; false when the waiting room, or the host's share
        /// of it (so a hung host cannot fill it), is full.
        mutating func wait(_ delivery: ClaimedDelivery, for host: String, now: ContinuousClock.Instant = .now) -> Bool {
            guard waitingCount < OutboxSender.maxWaiting, waiting[host, default: []].count < share(of: host, now: now) else { return false }
            waiting[host, default: []].append((delivery, now))
            waitingCount += 1
            return true
        }

        /// The host's next waiting delivery, which takes over the slot; without one (or when the
        /// slot is not to be passed on, at shutdown) the slot is left.
        mutating func next(for host: String, passing: Bool = true) -> ClaimedDelivery? {
            if passing, var queue = waiting[host], !queue.isEmpty {
                let (delivery, _) = queue.removeFirst()
                waiting[host] = queue.isEmpty ? nil : queue
                waitingCount -= 1
                return delivery
            }
            total -= 1
            byHost[host, default: 1] -= 1
            if byHost[host] == 0 { byHost[host] = nil }
            return nil
        }

        /// Waiting deliveries that may start now (their host below its bound, room in all),
        /// each taking its slot.
        mutating func startable() -> [(host: String, delivery: ClaimedDelivery)] {
            var started: [(host: String, delivery: ClaimedDelivery)] = []
            for host in Array(waiting.keys) where total < OutboxSender.maxInFlight {
                while total < OutboxSender.maxInFlight, var queue = waiting[host], !queue.isEmpty, enter(host) {
                    started.append((host, queue.removeFirst().0))
                    waiting[host] = queue.isEmpty ? nil : queue
                    waitingCount -= 1
                }
            }
            return started
        }

        /// Deliveries that waited past `maxWait`, taken out to be given back.
        mutating func takeStale(now: ContinuousClock.Instant = .now) -> [ClaimedDelivery] {
            var stale: [ClaimedDelivery] = []
            for (host, queue) in waiting {
                let old = queue.prefix { now - $0.1 > OutboxSender.maxWait }
                guard !old.isEmpty else { continue }
                stale += old.map(\.0)
                waiting[host] = queue.count == old.count ? nil : Array(queue.dropFirst(old.count))
                waitingCount -= old.count
            }
            return stale
        }
    }

    init(outbox: OutboxServices, logger: Logger) {
        self.outbox = outbox
        self.logger = logger
        delivered = DeliveredBatch(store: outbox.store, logger: logger)
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(10)))
        configuration.connectionPool = .init(idleTimeout: .seconds(30))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = Self.maxPerHost
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !self.outbox.board.isLoaded, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(100)) }
            await withDiscardingTaskGroup { group in
                var failures = 0
                var depthMeasured = ContinuousClock.now - .seconds(10)
                while !Task.isCancelled {
                    do {
                        if ContinuousClock.now - depthMeasured >= .seconds(2) {
                            depthMeasured = .now
                            Gauge(label: "noticeboard_outbox_pending").record(try await self.outbox.store.pendingCount())
                        }
                        for stale in self.inFlight.withLock({ $0.takeStale() }) { group.addTask { await self.giveBack(stale) } }
                        for (host, delivery) in self.inFlight.withLock({ $0.startable() }) { self.send(delivery, to: host, in: &group) }
                        // Claimed deliveries go through the waiting room, which the slots empty.
                        let room = self.inFlight.withLock { Self.maxWaiting - $0.waitingCount }
                        guard room > 0 else {
                            try? await Task.sleep(for: .milliseconds(20))
                            continue
                        }
                        let claimed = try await self.outbox.store.claimDue(limit: room, leaseMilliseconds: Int(Self.lease.milliseconds))
                        failures = 0
                        for delivery in claimed {
                            let host = Self.hostKey(delivery.url)
                            if !self.inFlight.withLock({ $0.wait(delivery, for: host) }) { group.addTask { await self.giveBack(delivery) } }
                        }
                        for (host, delivery) in self.inFlight.withLock({ $0.startable() }) { self.send(delivery, to: host, in: &group) }
                        // A full claim: more may be due at once. Otherwise what waits starts as slots free.
                        if claimed.count == room { continue }
                        if self.inFlight.withLock({ $0.waitingCount > 0 }) {
                            try? await Task.sleep(for: .milliseconds(20))
                            continue
                        }
                    } catch {
                        // Cancelled by shutdown: the claim's error is the shutdown, not a failure to report.
                        if Task.isCancelled { break }
                        failures += 1
                        if failures == 1 || failures % 50 == 0 { self.logger.warning("claiming deliveries failed", metadata: ["error": "\(error)"]) }
                    }
                    try? await Task.sleep(for: failures > 0 ? .seconds(1) : Self.idleInterval)
                }
                group.cancelAll()
            }
        }
        await delivered.drain(within: .seconds(3))
        try? await http.shutdown()
        await pinned.shutdown()
    }

    /// Sends a delivery in a slot of its host's, which then passes to the host's waiting
    /// deliveries one after another, and is left when none waits.
    private func send(_ delivery: ClaimedDelivery, to host: String, in group: inout DiscardingTaskGroup) {
        group.addTask {
            var next: ClaimedDelivery? = delivery
            while let current = next {
                let started = ContinuousClock.now
                await self.deliver(current)
                let (took, passing) = (ContinuousClock.now - started, !Task.isCancelled)
                next = self.inFlight.withLock { calls in
                    calls.took(took, host: host)
                    // A host that became slow gives back the slots above its lower bound.
                    guard calls.byHost[host, default: 0] <= calls.bound(of: host) else { return calls.next(for: host, passing: false) }
                    return calls.next(for: host, passing: passing)
                }
            }
        }
    }

    /// The host a delivery's calls count against (scheme, name and port).
    static func hostKey(_ url: String) -> String {
        (try? DeliveryURL(url, field: "url"))?.origin ?? url
    }

    /// A delivery claimed while its host was busy: not attempted, due again shortly.
    private func giveBack(_ delivery: ClaimedDelivery) async {
        Counter(label: "noticeboard_deliveries_deferred_total").increment()
        try? await outbox.store.record(.deferred(at: Timestamp.nowMilliseconds() + Self.busyHostDelay), of: delivery)
    }

    private func deliver(_ delivery: ClaimedDelivery) async {
        let outcome = await attempt(delivery)
        let kind = if case .webhook = delivery.target { "webhook" } else { "push" }
        let label: String
        switch outcome {
        case .delivered:
            label = "delivered"
            let seconds = Double(Timestamp.nowMilliseconds() - delivery.createdAt) / 1000
            Timer(label: "noticeboard_delivery_latency_seconds", dimensions: [("kind", kind)]).recordNanoseconds(Int64(max(seconds, 0) * 1e9))
        case .retry: label = "retry"
        case .failed: label = "failed"
        case .skipped: label = "skipped"
        case .gone: label = "gone"
        case .deferred: label = "deferred"
        }
        Counter(label: "noticeboard_deliveries_total", dimensions: [("kind", kind), ("outcome", label)]).increment()
        do {
            if case .delivered = outcome {
                await delivered.record(delivery)
            } else {
                try await outbox.store.record(outcome, of: delivery)
            }
        } catch {
            // The lease runs out and the delivery is tried again: at least once, never lost.
            if !Task.isCancelled {
                logger.warning("recording a delivery failed", metadata: ["delivery": "\(delivery.deliveryId)", "error": "\(error)"])
            }
        }
    }

    func attempt(_ delivery: ClaimedDelivery) async -> DeliveryOutcome {
        let now = Timestamp.nowMilliseconds()
        if delivery.event != .removed, !delivery.postIsLive { return .skipped(reason: "the post left the board before it was sent") }
        let failure = { (error: String, retryAfter: Int?) in
            RetrySchedule.afterFailure(error, attempts: delivery.attempts, createdAt: delivery.createdAt, now: now, retryAfterSeconds: retryAfter)
        }
        guard let url = try? DeliveryURL(delivery.url, field: "url") else { return .failed(error: "the URL is no longer valid") }
        let address: String?
        switch await outbox.policy.pin(url) {
        case .connect(let checked): address = checked
        case .refused(let reason): return failure("refused: the host \(reason)", nil)
        case .unresolved: return failure("the host \(url.host) does not resolve", nil)
        }
        var request = HTTPClientRequest(url: url.text)
        request.method = .POST
        request.headers.add(name: "User-Agent", value: "NoticeBoard")
        switch delivery.target {
        case .webhook:
            let signature = HMAC<SHA256>.authenticationCode(for: delivery.body, using: SymmetricKey(data: Array((delivery.secret ?? "").utf8)))
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "X-NoticeBoard-Signature", value: "sha256=" + signature.map { String(format: "%02x", $0) }.joined())
            request.headers.add(name: "X-NoticeBoard-Delivery", value: delivery.deliveryId)
            request.headers.add(name: "X-NoticeBoard-Event", value: delivery.event.rawValue)
            request.body = .bytes(ByteBuffer(bytes: delivery.body))
        case .subscription:
            do {
                let encrypted = try WebPushEncryption.encrypt(delivery.body, p256dh: delivery.p256dh ?? [], auth: delivery.auth ?? [])
                request.headers.add(name: "Authorization", value: try await outbox.vapidAuthorization(audience: url.origin))
                request.headers.add(name: "TTL", value: String(Self.pushTTLSeconds))
                request.headers.add(name: "Content-Encoding", value: "aes128gcm")
                request.headers.add(name: "Content-Type", value: "application/octet-stream")
                request.headers.add(name: "Urgency", value: "normal")
                request.body = .bytes(ByteBuffer(bytes: encrypted))
            } catch let error as WebPushEncryption.TooLarge {
                return .failed(error: "\(error)")
            } catch {
                return failure("the push could not be encrypted or signed: \(error)", nil)
            }
        }
        do {
            let response = try await PinnedCall.execute(request, host: url.host, pinnedTo: address, shared: http, pinned: pinned, deadline: .now() + Self.callDeadline)
            let status = Int(response.status.code)
            if (200..<300).contains(status) { return .delivered }
            if case .subscription = delivery.target, status == 404 || status == 410 {
                return .gone(error: "the push service answered \(status): the subscription is gone")
            }
            // The same bytes would be refused again for a day.
            if status == 413 { return .failed(error: "the target answered 413: the body is too large for it") }
            let retryAfter = response.headers.first(name: "Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            return failure("the target answered \(status)", status == 429 || status == 503 ? retryAfter : nil)
        } catch {
            return failure("the call failed: \(error)", nil)
        }
    }
}
