import Synchronization

/// Slows password guessing at one account, whichever addresses the guesses come from: after
/// `freeFailures` wrong passwords in a row the account accepts its next attempt only after a
/// wait that doubles with each further failure (1 s, 2 s, … up to `maxWait`). A right password
/// clears the count. The per-address limiter bounds the CPU any one address spends on bcrypt.
final class LoginThrottle: Sendable {
    struct Account {
        var failures: Int
        var nextAttempt: Double
        var lastFailure: Double
    }

    let freeFailures: Int
    let maxWait: Double
    /// Accounts are forgotten this long after their last failure.
    let memory: Double
    let now: @Sendable () -> Double
    private let accounts = Mutex<(byName: [String: Account], lastSweep: Double)>(([:], 0))

    init(freeFailures: Int = 5, maxWait: Double = 900, memory: Double = 3600, now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds) {
        self.freeFailures = freeFailures
        self.maxWait = maxWait
        self.memory = memory
        self.now = now
    }

    /// `nil` when an attempt may go ahead, else the whole seconds until one may.
    func retryAfter(username: String) -> Int? {
        let time = now()
        return accounts.withLock { state in
            guard let account = state.byName[username], account.nextAttempt > time else { return nil }
            return max(1, Int((account.nextAttempt - time).rounded(.up)))
        }
    }

    func failed(username: String) {
        let time = now()
        accounts.withLock { state in
            if state.byName.count > 10_000, time - state.lastSweep > 10 {
                state.byName = state.byName.filter { time - $0.value.lastFailure < memory }
                state.lastSweep = time
            }
            var account = state.byName[username] ?? Account(failures: 0, nextAttempt: 0, lastFailure: time)
            account.failures += 1
            account.lastFailure = time
            if account.failures >= freeFailures {
                let wait = min(maxWait, Double(1 << min(30, account.failures - freeFailures)))
                account.nextAttempt = time + wait
            }
            state.byName[username] = account
        }
    }

    func succeeded(username: String) {
        _ = accounts.withLock { $0.byName.removeValue(forKey: username) }
    }
}
