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
/// attempt ended. Calls run side by side, at most `maxInFlight` in all and `maxPerHost` to any
/// one host: a receiver that hangs holds its own slots only, and what is claimed for a host
/// already at its bound is given back for a little later. Every call has a deadline shorter
/// than the lease.
final class OutboxSender: Service, Sendable {
    static let maxInFlight = 64
    static let maxPerHost = 8
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
    private let inFlight = Mutex(CallsInFlight())

    struct CallsInFlight {
        var total = 0
        var byHost: [String: Int] = [:]

        mutating func enter(_ host: String) -> Bool {
            guard byHost[host, default: 0] < OutboxSender.maxPerHost else { return false }
            byHost[host, default: 0] += 1
            total += 1
            return true
        }

        mutating func leave(_ host: String) {
            total -= 1
            byHost[host, default: 1] -= 1
            if byHost[host] == 0 { byHost[host] = nil }
        }
    }

    init(outbox: OutboxServices, logger: Logger) {
        self.outbox = outbox
        self.logger = logger
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
                        let room = Self.maxInFlight - self.inFlight.withLock { $0.total }
                        guard room > 0 else {
                            try? await Task.sleep(for: .milliseconds(20))
                            continue
                        }
                        let claimed = try await self.outbox.store.claimDue(limit: room, leaseMilliseconds: Int(Self.lease.milliseconds))
                        failures = 0
                        var started = 0
                        for delivery in claimed {
                            let host = Self.hostKey(delivery.url)
                            guard self.inFlight.withLock({ $0.enter(host) }) else {
                                group.addTask { await self.giveBack(delivery) }
                                continue
                            }
                            started += 1
                            group.addTask {
                                await self.deliver(delivery)
                                self.inFlight.withLock { $0.leave(host) }
                            }
                        }
                        if started > 0, claimed.count == room { continue }
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
        try? await http.shutdown()
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
            try await outbox.store.record(outcome, of: delivery)
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
        let pinned: String?
        switch await outbox.policy.pin(url) {
        case .connect(let address): pinned = address
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
            let response = try await PinnedCall.execute(request, host: url.host, pinnedTo: pinned, shared: http, deadline: .now() + Self.callDeadline)
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
