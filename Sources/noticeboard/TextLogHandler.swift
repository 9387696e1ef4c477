import Foundation
import Logging

/// Plain text log lines on standard error, as swift-log's `StreamLogHandler` writes them:
/// `2026-11-25T02:40:00+0000 info noticeboard : key=value [source] message`.
/// Metadata is formatted when a line is written, not each time it is set: every request sets its
/// id on its logger, and most requests write no line.
struct TextLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadataProvider?.get() ?? [:]
        merged.merge(metadata) { _, new in new }
        merged.merge(event.metadata ?? [:]) { _, new in new }
        if let error = event.error { merged["error"] = "\(error)" }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let line = "\(Self.timestamp()) \(event.level) \(label) :\(fields.isEmpty ? "" : " " + fields) [\(event.source)] \(event.message)\n"
        // One write per line: lines from concurrent tasks never interleave.
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
