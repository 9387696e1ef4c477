import Dispatch
import Logging
import Metrics
import NoticeBoardPostgres
import ServiceLifecycle

/// Watches the embedded cluster this process started and starts it again when it dies (killed
/// or crashed, leaving its pid file), with backoff, saying so in the log and in `/metrics`.
/// Requests meanwhile get 503 (the store's deadline), and nothing acknowledged is lost:
/// PostgreSQL recovers from its write-ahead log. A cluster stopped the orderly way (an operator's
/// `pg_ctl stop`) is left stopped, and said so once.
struct EmbeddedPostgresSupervisor: Service {
    let cluster: EmbeddedPostgres
    let port: Int
    let logger: Logger
    var checkInterval: Duration = .seconds(1)

    func run() async throws {
        // Shutdown does not wait for a backoff to run out.
        await cancelWhenGracefulShutdown { await watch() }
    }

    private func watch() async {
        let up = Gauge(label: "noticeboard_embedded_postgres_up")
        let restarts = Counter(label: "noticeboard_embedded_postgres_restarts_total")
        var backoff: Duration = .seconds(1)
        var downSince: ContinuousClock.Instant?
        var reportedStopped = false
        while !Task.isCancelled {
            switch cluster.postmasterState {
            case .running:
                up.record(1)
                downSince = nil
                reportedStopped = false
                backoff = .seconds(1)
                try? await Task.sleep(for: checkInterval)
                continue
            case .stopped:
                up.record(0)
                if !reportedStopped {
                    logger.error("the embedded PostgreSQL was stopped from outside; start it again with pg_ctl, or restart the server")
                    reportedStopped = true
                }
                try? await Task.sleep(for: checkInterval)
                continue
            case .died:
                break
            }
            up.record(0)
            if downSince == nil {
                downSince = .now
                logger.error("the embedded PostgreSQL is not running; starting it again")
            }
            do {
                try await Self.offTheEventLoops { try cluster.restart(port: port) }
                restarts.increment()
                logger.notice("the embedded PostgreSQL is back", metadata: ["down_for": "\(ContinuousClock.now - downSince!)"])
            } catch {
                logger.warning("the embedded PostgreSQL did not start; retrying", metadata: ["in": "\(backoff)", "error": "\(error)"])
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(30))
            }
        }
    }

    /// `pg_ctl` blocks for seconds; requests run on the event loops, so it runs on a thread of its own.
    static func offTheEventLoops(_ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async { continuation.resume(with: Result(catching: body)) }
        }
    }
}
