import Foundation

/// Progress of a long import on standard error: a redrawn bar with rate and ETA on a terminal,
/// a plain line every ten seconds otherwise (logs and CI keep readable output).
final class ImportProgress {
    private let totalBytes: Int
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let started = Date()
    private var bytesRead = 0
    private lazy var lastDrawn = started

    init(totalBytes: Int) { self.totalBytes = totalBytes }

    func update(bytes: Int, rows: Int) {
        bytesRead += bytes
        let now = Date()
        guard now.timeIntervalSince(lastDrawn) >= (isTerminal ? 0.2 : 10) else { return }
        lastDrawn = now
        write(rows: rows, final: false)
    }

    func finish(rows: Int) {
        write(rows: rows, final: true)
    }

    /// A step after the rows are read that takes a while of its own.
    func note(_ text: String) {
        FileHandle.standardError.write(Data("import: \(text)\n".utf8))
    }

    private func write(rows: Int, final: Bool) {
        let elapsed = max(Date().timeIntervalSince(started), 0.001)
        let fraction = totalBytes > 0 ? min(Double(bytesRead) / Double(totalBytes), 1) : 0
        let rate = Double(rows) / elapsed
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
        let numbers = "\(rows) rows, \(Int(rate)) rows/s, \(Int(fraction * 100))%"
            + (final ? ", \(String(format: "%.1f", elapsed)) s" : ", ETA \(Int(eta.rounded())) s")
        if isTerminal {
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            FileHandle.standardError.write(Data("\r[\(bar)] \(numbers)\u{1B}[K\(final ? "\n" : "")".utf8))
        } else {
            FileHandle.standardError.write(Data("import: \(numbers)\n".utf8))
        }
    }
}
