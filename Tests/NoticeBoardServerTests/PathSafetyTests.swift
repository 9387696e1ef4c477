import BoardTestSupport
import Testing

@testable import NoticeBoardServer

@Suite struct PathSafetyTests {
    typealias Safety = PathSafety

    /// The one-pass check for plain paths agrees with the decoding check on every path it decides.
    @Test func plainPathsJudgedAsTheFullCheckJudgesThem() {
        var random = SeededGenerator(seed: 0x5AFE)
        let pieces = ["/", "/", "/", ".", "..", "a", "app.js", "%2f", "%2F", "%5c", "%00", "%2e", "\\", "moderate", "x.y", "%41"]
        var decidedPlainly = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...7, using: &random)
            let path = (0..<length).map { _ in pieces.randomElement(using: &random)! }.joined()
            #expect(Safety.isSafe(path) == Safety.decodedPathIsSafe(path), "\(path)")
            if Safety.plainPathVerdict(path.utf8) != nil { decidedPlainly += 1 }
        }
        #expect(decidedPlainly > 5_000)
    }

    @Test func knownPaths() {
        for safe in ["/", "/app.js", "/moderate/", "/vendor/leaflet/leaflet.js", "/a/.../b", "/.well-known"] {
            #expect(Safety.isSafe(safe), "\(safe)")
        }
        for unsafe in ["", "a", "//moderate", "/a//b", "/..", "/a/../b", "/./a", "/a/.", "/a\\b", "/a%2fb", "/app.js%00.html", "/%2e%2e/x"] {
            #expect(!Safety.isSafe(unsafe), "\(unsafe)")
        }
    }
}
