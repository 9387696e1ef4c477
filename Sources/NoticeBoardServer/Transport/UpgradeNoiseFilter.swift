import Logging
import Metrics

/// hummingbird-websocket logs "Error handling upgrade result" at error level for every
/// connection that closes before a full first request head (a port scan, a client giving up, a
/// trickle timed out: 1 213 lines in one run of issue 37). Such a connection is the client's
/// doing, not the server's: the line goes out at debug and is counted in
/// `noticeboard_connections_without_request_total`.
struct UpgradeNoiseFilter: LogHandler {
    static let noisyMessage = "Error handling upgrade result"
    static let counter = Counter(label: "noticeboard_connections_without_request_total")

    var base: any LogHandler

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { base.metadataProvider }
        set { base.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.message.description == Self.noisyMessage else { return base.log(event: event) }
        Self.counter.increment()
        guard base.logLevel <= .debug else { return }
        var demoted = event
        demoted.level = .debug
        base.log(event: demoted)
    }

    /// `logger` with its handler behind the filter.
    static func filtering(_ logger: Logger) -> Logger {
        var filtered = logger
        filtered.handler = UpgradeNoiseFilter(base: logger.handler)
        return filtered
    }
}
