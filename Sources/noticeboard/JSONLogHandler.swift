import Foundation
import Logging

/// One JSON object per log line on standard error, for log collectors:
/// `{"ts":"…","level":"info","label":"noticeboard","message":"…","request_id":"…",…}`.
/// Metadata becomes top-level members (nested values as their text).
struct JSONLogHandler: LogHandler {
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
        var fields: [String: String] = [:]
        for (key, value) in metadataProvider?.get() ?? [:] { fields[key] = "\(value)" }
        for (key, value) in metadata { fields[key] = "\(value)" }
        for (key, value) in event.metadata ?? [:] { fields[key] = "\(value)" }
        if let error = event.error { fields["error"] = "\(error)" }
        fields["ts"] = ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withInternetDateTime, .withFractionalSeconds])
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["source"] = event.source
        fields["message"] = event.message.description
        guard var data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        data.append(UInt8(ascii: "\n"))
        // One write per line: lines from concurrent tasks never interleave.
        FileHandle.standardError.write(data)
    }
}
