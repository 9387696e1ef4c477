import Logging
import Synchronization

enum LogFormat: String, CaseIterable, Sendable {
    case text, json
}

enum LoggingSetup {
    private static let bootstrapped = Mutex(false)

    /// Installs the chosen handler for the whole process, once, before the first logger.
    static func bootstrap(_ format: LogFormat) {
        bootstrapped.withLock { done in
            guard !done else { return }
            done = true
            LoggingSystem.bootstrap { StandardErrorLogHandler(label: $0, format: format) }
        }
    }
}
