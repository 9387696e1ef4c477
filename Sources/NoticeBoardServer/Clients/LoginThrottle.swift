import Synchronization

/// Slows password guessing at one account, whichever addresses the guesses come from: after
/// `freeFailures` wrong passwords the account accepts its next attempt only after a wait that
/// doubles with each further failure (1 s, 2 s, … up to `maxWait`), and one attempt at a time.
/// Attempts in flight count as failures to come from the first one, so guesses fired at once
/// cannot slip through together. A right password does not clear the count (a moderator's own
/// login would open another free wave for a guesser); the count is forgotten twice `maxWait`
/// after the last failure. An address the account has logged in from before is not held back by the
/// account's wait, so guessing from elsewhere cannot lock its moderator out. The per-address
/// limiter and `BcryptGate` bound the CPU spent on bcrypt.
final class LoginThrottle: Sendable {
    struct Account {
        var failures = 0
        var inFlight = 0
        var nextAttempt = -Double.infinity
        var lastFailure = -Double.infinity
        var lastActivity: Double
        /// Addresses (client pseudonyms) this account logged in from; a few are kept.
        var knownAddresses: [String] = []
    }

    let freeFailures: Int
    let maxWait: Double
    /// Accounts are forgotten this long after their last attempt.
    let memory: Double
    let now: @Sendable () -> Double
    private let accounts = Mutex<(byName: [String: Account], lastSweep: Double)>(([:], 0))
    static let knownAddressesKept = 16

    init(
        freeFailures: Int = 5, maxWait: Double = 900, memory: Double = 30 * 86_400,
        now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds
    ) {
        self.freeFailures = freeFailures
        self.maxWait = maxWait
        self.memory = memory
        self.now = now
    }

    /// Reserves an attempt: `nil` when it may go ahead (then `finished` must follow), else the
    /// whole seconds until one may.
    func admit(username: String, address: String) -> Int? {
        let time = now()
        return accounts.withLock { state in
            if state.byName.count > 10_000, time - state.lastSweep > 10 {
                state.byName = state.byName.filter { time - $0.value.lastActivity < memory || !$0.value.knownAddresses.isEmpty }
                state.lastSweep = time
            }
            var account = state.byName[username] ?? Account(lastActivity: time)
            if account.failures > 0, time - account.lastFailure >= 2 * maxWait {
                account.failures = 0
                account.nextAttempt = -Double.infinity
            }
            let known = account.knownAddresses.contains(address)
            if !known {
                if account.nextAttempt > time { return max(1, Int((account.nextAttempt - time).rounded(.up))) }
                if account.failures >= freeFailures {
                    if account.inFlight > 0 { return 1 }
                } else if account.failures + account.inFlight >= freeFailures {
                    return 1
                }
            }
            account.inFlight += 1
            account.lastActivity = time
            state.byName[username] = account
            return nil
        }
    }

    /// Whether the account logged in from this address before: its attempts skip the account's
    /// wait and the global budget, and go first in bcrypt's line.
    func vouches(for address: String, username: String) -> Bool {
        accounts.withLock { $0.byName[username]?.knownAddresses.contains(address) ?? false }
    }

    /// Records the outcome of an admitted attempt; one that never checked a password (refused
    /// by the address limiter, or the database failed) is not `counted`.
    func finished(username: String, address: String, succeeded: Bool, counted: Bool = true) {
        let time = now()
        accounts.withLock { state in
            guard var account = state.byName[username] else { return }
            account.inFlight = max(0, account.inFlight - 1)
            account.lastActivity = time
            if !counted {
                state.byName[username] = account
                return
            }
            if succeeded {
                account.knownAddresses.removeAll { $0 == address }
                account.knownAddresses.append(address)
                if account.knownAddresses.count > Self.knownAddressesKept { account.knownAddresses.removeFirst() }
            } else {
                account.failures += 1
                account.lastFailure = time
                if account.failures >= freeFailures {
                    account.nextAttempt = time + min(maxWait, Double(1 << min(30, account.failures - freeFailures)))
                }
            }
            state.byName[username] = account
        }
    }
}
