import Foundation
import Logging

/// Log lines on standard error, as text or as JSON (`LogFormat`), one write per line so lines
/// from concurrent tasks never interleave. Metadata is formatted when a line is written, not
/// each time it is set: every request sets its id on its logger, and most requests write no line.
struct StandardErrorLogHandler: LogHandler {
    let label: String
    let format: LogFormat
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, format: LogFormat, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.format = format
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
        let line = switch format {
        case .text: Self.textLine(event, label: label, metadata: merged)
        case .json: Self.jsonLine(event, label: label, metadata: merged)
        }
        guard let line else { return }
        FileHandle.standardError.write(line)
    }

    /// As swift-log's `StreamLogHandler` writes it:
    /// `2026-11-25T02:40:00+0000 info noticeboard : key=value [source] message`.
    static func textLine(_ event: LogEvent, label: String, metadata: Logger.Metadata) -> Data? {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return Data("\(localTimestamp()) \(event.level) \(label) :\(fields.isEmpty ? "" : " " + fields) [\(event.source)] \(event.message)\n".utf8)
    }

    /// One JSON object for log collectors:
    /// `{"ts":"…","level":"info","label":"noticeboard","message":"…","request_id":"…",…}`.
    /// Metadata becomes top-level members (nested values as their text).
    static func jsonLine(_ event: LogEvent, label: String, metadata: Logger.Metadata) -> Data? {
        var fields = metadata.mapValues { "\($0)" }
        fields["ts"] = ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withInternetDateTime, .withFractionalSeconds])
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["source"] = event.source
        fields["message"] = event.message.description
        guard var data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else { return nil }
        data.append(UInt8(ascii: "\n"))
        return data
    }

    private static func localTimestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
