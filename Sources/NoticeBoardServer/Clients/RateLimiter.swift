import Synchronization

/// A token bucket per client: `ratePerMinute` tokens a minute, at most `burst` saved up.
/// A request reserves a token before the work and gives it back if the work does not count.
public final class RateLimiter: Sendable {
    public enum Decision: Equatable, Sendable {
        case allowed
        case limited(retryAfterSeconds: Int)
    }

    struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let ratePerSecond: Double
    let burst: Double
    let now: @Sendable () -> Double
    private let buckets = Mutex<(byClient: [String: Bucket], lastSweep: Double)>(([:], 0))
    /// Buckets that have refilled are forgotten, in one sweep at most this often; a sweep costs
    /// one pass, so a large table of active clients is not filtered on every request.
    static let sweepInterval: Double = 10

    /// A rate of 0 means unlimited. `now` returns seconds on any monotonic clock (tests inject one).
    public init(ratePerMinute: Int, burst: Int, now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds) {
        self.ratePerSecond = Double(ratePerMinute) / 60
        self.burst = Double(max(1, burst))
        self.now = now
    }

    public var isUnlimited: Bool { ratePerSecond <= 0 }

    public func reserve(for client: String) -> Decision {
        guard !isUnlimited else { return .allowed }
        let time = now()
        return buckets.withLock { state in
            if state.byClient.count > 10_000, time - state.lastSweep >= Self.sweepInterval {
                Self.dropFullBuckets(&state.byClient, at: time, rate: ratePerSecond, burst: burst)
                state.lastSweep = time
            }
            var bucket = state.byClient[client] ?? Bucket(tokens: burst, updated: time)
            bucket.tokens = min(burst, bucket.tokens + (time - bucket.updated) * ratePerSecond)
            bucket.updated = time
            guard bucket.tokens >= 1 else {
                state.byClient[client] = bucket
                return .limited(retryAfterSeconds: max(1, Int(((1 - bucket.tokens) / ratePerSecond).rounded(.up))))
            }
            bucket.tokens -= 1
            state.byClient[client] = bucket
            return .allowed
        }
    }

    /// Returns a reserved token: the request did not create anything.
    public func refund(for client: String) {
        guard !isUnlimited else { return }
        buckets.withLock { state in
            if var bucket = state.byClient[client] {
                bucket.tokens = min(burst, bucket.tokens + 1)
                state.byClient[client] = bucket
            }
        }
    }

    /// Clients tracked now (tests check that refilled buckets are forgotten).
    var trackedClients: Int { buckets.withLock { $0.byClient.count } }

    private static func dropFullBuckets(_ buckets: inout [String: Bucket], at time: Double, rate: Double, burst: Double) {
        buckets = buckets.filter { $0.value.tokens + (time - $0.value.updated) * rate < burst }
    }

    @Sendable public static func monotonicSeconds() -> Double {
        // The origin first: read after `now`, its lazy start would make the first reading negative.
        let origin = start
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    private static let start = ContinuousClock.now
}
