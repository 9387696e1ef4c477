import Hummingbird

/// Refuses paths outside the API that file serving would misread, before a file middleware sees
/// them: an empty segment (`//moderate` redirected to `//moderate/` is another host to a
/// browser), an encoded slash or backslash, a NUL byte (`/app.js%00.html`), a `..` segment.
/// And a file middleware's redirect must only add the trailing slash to the path asked for.
enum PathSafety {
    /// Throws a 404 for an unsafe path outside the API.
    static func check(_ request: Request) throws {
        let raw = request.uri.path
        // API routes validate their own path parameters (a bad beacon UUID is a 400 on `uuid`).
        guard raw.hasPrefix("/api/") || isSafe(raw) else { throw APIError.notFound("no route for this path") }
    }

    /// Throws a 404 for a redirect other than the trailing slash added to the path asked for.
    static func checkRedirect(_ response: Response, for request: Request) throws {
        let raw = request.uri.path
        if (300..<400).contains(response.status.code), let location = response.headers[.location], location != raw + "/" {
            throw APIError.notFound("no route for \(raw)")
        }
    }

    static func isSafe(_ rawPath: String) -> Bool {
        // Most paths hold no escape, backslash, doubled slash or dot segment: one pass over the bytes.
        plainPathVerdict(rawPath.utf8) ?? decodedPathIsSafe(rawPath)
    }

    /// The full check, decoding escapes.
    static func decodedPathIsSafe(_ rawPath: String) -> Bool {
        let lowered = rawPath.lowercased()
        guard rawPath.hasPrefix("/"), !rawPath.contains("//"), !rawPath.contains("\\"),
            !lowered.contains("%2f"), !lowered.contains("%5c"), !lowered.contains("%00")
        else { return false }
        let decoded = rawPath.removingPercentEncoding ?? rawPath
        guard !decoded.contains("\0"), !decoded.contains("//") else { return false }
        return !decoded.split(separator: "/").contains { $0 == ".." || $0 == "." }
    }

    /// The verdict for a path without `%` or a backslash, which needs no decoding; nil when it has either.
    static func plainPathVerdict(_ bytes: String.UTF8View) -> Bool? {
        guard bytes.first == UInt8(ascii: "/") else { return false }
        var previous: UInt8 = 0
        var segmentLength = 0
        var segmentDots = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "\\"):
                return nil
            case 0:
                return false
            case UInt8(ascii: "/"):
                if previous == UInt8(ascii: "/") { return false }
                if segmentLength > 0, segmentLength == segmentDots, segmentLength <= 2 { return false }
                segmentLength = 0
                segmentDots = 0
            default:
                segmentLength += 1
                if byte == UInt8(ascii: ".") { segmentDots += 1 }
            }
            previous = byte
        }
        return !(segmentLength > 0 && segmentLength == segmentDots && segmentLength <= 2)
    }
}
