import Logging

/// Keeps this instance's places in step with changes any instance commits: the store's
/// revision is read a few times a second (one tiny query), the directory reloaded when it moves.
/// Places change rarely and are few, so polling costs less than a notification channel would.
struct PlaceFollower {
    let board: Board
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while true {
            try await Task.sleep(for: interval)
            do {
                try await board.reloadPlaces(onlyIfChanged: true)
            } catch is CancellationError {
                return
            } catch {
                logger.warning("places reload failed; retrying", metadata: ["error": "\(error)"])
            }
        }
    }
}
