import HTTPTypes
import Hummingbird
import Logging
import NoticeBoardCore

/// Gives every request an id on every log line it causes and in the `X-Request-Id` response
/// header. A well-formed id sent by a proxy is kept, so one id follows a request through both;
/// anything else is replaced by Hummingbird's own. Finished requests are logged at debug
/// (server errors at error, 503 excepted), without bodies, tokens or query values that might hold them.
enum RequestIdentity {
    static let headerName = HTTPField.Name("X-Request-Id")!
    static let metadataKey = "request_id"

    /// The request's id, put on the logger in place of Hummingbird's key.
    static func adopt(_ request: Request, logger: inout Logger) -> String {
        let generated = logger[metadataKey: "hb.request.id"].map { "\($0)" } ?? ""
        let id = request.headers[headerName].flatMap { isAcceptable($0) ? $0 : nil } ?? generated
        logger[metadataKey: "hb.request.id"] = nil
        logger[metadataKey: metadataKey] = .string(id)
        return id
    }

    static func logFinished(_ request: Request, _ response: Response, since started: ContinuousClock.Instant, logger: Logger) {
        // 503 is expected while loading or when the database is away (logged once as such).
        let level: Logger.Level = response.status.code >= 500 && response.status.code != 503 ? .error : .debug
        // The line's metadata is built only when the line is written (debug is off by default).
        guard logger.logLevel <= level else { return }
        let metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue), "path": .string(request.uri.path),
            "status": .stringConvertible(response.status.code),
            "duration_ms": .stringConvertible((ContinuousClock.now - started).milliseconds),
        ]
        logger.log(level: level, "request finished", metadata: metadata)
    }

    /// 1...128 characters of letters, digits, `-`, `_`, `.`: safe in a log line and a header.
    static func isAcceptable(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 45 || byte == 95 || byte == 46
            }
    }
}
