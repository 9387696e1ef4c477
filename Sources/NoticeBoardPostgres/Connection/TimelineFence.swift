import Foundation
import Synchronization

/// The newest PostgreSQL timeline this instance has written on, kept in a file so a restart
/// remembers it. A primary on an older timeline is one that was failed over from and started
/// again (by hand, say): what it accepts the new primary never sees, so no pool may use it.
public final class TimelineFence: Sendable {
    private let newest: Mutex<Int>
    private let file: URL?

    /// `file` holds the timeline between runs (nil: memory only).
    public init(file: URL?) {
        self.file = file
        let stored = file.flatMap { try? String(contentsOf: $0, encoding: .utf8) }
        newest = Mutex(stored.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0)
    }

    /// The newest timeline written on so far (0: none yet).
    public var lastWritten: Int { newest.withLock { $0 } }

    /// Remembers that writes go to `timeline` now; returns false (and remembers nothing) for an older one.
    @discardableResult
    public func record(_ timeline: Int) -> Bool {
        let changed: Bool? = newest.withLock { newest in
            guard timeline >= newest else { return nil }
            defer { newest = timeline }
            return timeline > newest
        }
        guard let changed else { return false }
        if changed, let file {
            // Written whole and renamed, so a crash never leaves a half-written number.
            let staging = file.appendingPathExtension("new")
            guard (try? Data("\(timeline)\n".utf8).write(to: staging)) != nil else { return true }
            _ = rename(staging.path, file.path)
        }
        return true
    }
}
