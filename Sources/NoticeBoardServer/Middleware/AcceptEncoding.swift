import Foundation
import Hummingbird

/// What a request's `Accept-Encoding` allows.
enum AcceptEncoding {
    /// Whether the request takes gzip (`gzip` or `*`, not with `q=0`).
    static func takesGzip(_ request: Request) -> Bool {
        request.headers[.acceptEncoding].map(takesGzip) == true
    }

    static func takesGzip(_ header: String) -> Bool {
        header.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first, coding == "gzip" || coding == "*" else { return false }
            return !parts.dropFirst().contains { $0.replacingOccurrences(of: " ", with: "").hasPrefix("q=0") && !$0.contains("q=0.") }
        }
    }
}
