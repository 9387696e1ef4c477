import Hummingbird

/// Refuses requests whose target is absurdly long before any handler parses it. Headers are
/// bounded by the HTTP decoder (`ServerSettings.serverBuilder`), bodies by the handlers (16 KiB).
enum RequestLimits {
    static let maxTargetBytes = 8 * 1024

    static func check(_ request: Request) throws {
        guard request.uri.description.utf8.count <= maxTargetBytes else {
            throw APIError.invalid("the URL is longer than \(maxTargetBytes) bytes")
        }
    }
}
