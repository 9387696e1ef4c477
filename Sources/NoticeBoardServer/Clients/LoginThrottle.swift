import Synchronization

/// Slows password guessing at one account, whichever addresses the guesses come from: after
/// `freeFailures` wrong passwords in a row the account accepts its next attempt only after a
/// wait that doubles with each further failure (1 s, 2 s, … up to `maxWait`), and one attempt
/// at a time, so guesses fired at once cannot slip through together. A right password clears
/// the count. An address the account has logged in from before is not held back by the
/// account's wait, so guessing from elsewhere cannot lock its moderator out. The per-address
/// limiter bounds the CPU any one address spends on bcrypt.
final class LoginThrottle: Sendable {
    struct Account {
        var failures = 0
        var inFlight = 0
        var nextAttempt = -Double.infinity
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
            let known = account.knownAddresses.contains(address)
            if !known {
                if account.nextAttempt > time { return max(1, Int((account.nextAttempt - time).rounded(.up))) }
                // Once guesses have failed, those in flight count as failures to come.
                if account.failures > 0, account.failures + account.inFlight >= freeFailures, account.inFlight > 0 { return 1 }
            }
            account.inFlight += 1
            account.lastActivity = time
            state.byName[username] = account
            return nil
        }
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
                account.failures = 0
                account.nextAttempt = -Double.infinity
                account.knownAddresses.removeAll { $0 == address }
                account.knownAddresses.append(address)
                if account.knownAddresses.count > Self.knownAddressesKept { account.knownAddresses.removeFirst() }
            } else {
                account.failures += 1
                if account.failures >= freeFailures {
                    account.nextAttempt = time + min(maxWait, Double(1 << min(30, account.failures - freeFailures)))
                }
            }
            state.byName[username] = account
        }
    }
}
