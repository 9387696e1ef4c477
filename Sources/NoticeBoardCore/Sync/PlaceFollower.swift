import Logging

/// Keeps this instance's places in step with changes any instance commits: the store's
/// revision is read a few times a second (one tiny query), the directory reloaded when it moves.
/// Places change rarely and are few, so polling costs less than a notification channel would.
struct PlaceFollower {
    let board: Board
    let interval: Duration
    let logger: Logger

    func run() async throws {
        var failing = false
        while true {
            // While the database is away, ask once a second and say so once, not four times a second.
            try await Task.sleep(for: failing ? max(interval, .seconds(1)) : interval)
            do {
                try await board.reloadPlaces(onlyIfChanged: true)
                if failing { logger.info("places reload works again") }
                failing = false
            } catch is CancellationError {
                return
            } catch {
                if !failing { logger.warning("places reload failed; retrying every second", metadata: ["error": "\(error)"]) }
                failing = true
            }
        }
    }
}
