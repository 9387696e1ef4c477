import DatabaseTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NoticeBoardCore
import NoticeBoardPostgres
import NoticeBoardServer
import Synchronization
import Testing

/// Issue 37: passwords bcrypt would truncate are refused, and spraying logins from many addresses
/// and names buys a bounded number of bcrypt checks while a moderator's own login stays fast.
@Suite(.timeLimit(.minutes(5))) struct LoginSprayTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// A fresh app with one moderator; router tests have no peer address ("unknown"), so that is
    /// made the trusted proxy and `X-Forwarded-For` names each attempt's address.
    static func app(password: String) async throws -> TestApp {
        var app = try await TestApp.make()
        app.settings.trustedProxies = ["unknown"]
        let added = try await TestDatabase.withClient(app.endpoint) { client in
            try await PostgresModerationStore(client: DatabasePool(client), logger: TestDatabase.logger)
                .addModerator(username: "mod", passwordHash: ModeratorAuth.hashPassword(password))
        }
        #expect(added)
        return app
    }

    /// Answers by status, from many tasks.
    final class Tally: Sendable {
        private let byStatus = Mutex<[Int: Int]>([:])
        func count(_ status: Int) { byStatus.withLock { $0[status, default: 0] += 1 } }
        var counts: [Int: Int] { byStatus.withLock { $0 } }
    }

    static func login(_ http: any TestClientProtocol, _ user: String, _ password: String, from address: String) async throws -> TestResponse {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["username": user, "password": password]), as: UTF8.self)
        return try await http.postJSON(body, headers: [forwardedFor: address], uri: "/api/v1/auth/token")
    }

    @Test func passwordsBcryptWouldTruncateAreRefused() async throws {
        let password = String(repeating: "A", count: 72)
        try await Self.app(password: password).test { http, _ in
            for refused in [password + "B", "AAAAAAAA\u{0}whatever"] {
                let response = try await Self.login(http, "mod", refused, from: "10.0.0.1")
                #expect(response.status == .badRequest, "\(refused.utf8.count) bytes")
                #expect(try response.decoded(ErrorBody.self).error.field == "password")
            }
            #expect(try await Self.login(http, "mod", password, from: "10.0.0.1").status == .ok)
        }
    }

    @Test func sprayingNamesAndAddressesBuysBoundedBcryptAndTheModeratorStaysFast() async throws {
        var app = try await Self.app(password: "correct horse")
        let gate = BcryptGate()
        app.settings.passwordChecks = gate
        try await app.test { http, _ in
            // The moderator's usual address: it logged in from there before.
            #expect(try await Self.login(http, "mod", "correct horse", from: "10.0.0.1").status == .ok)
            let before = gate.checksStarted
            let window = Duration.seconds(10)
            let end = ContinuousClock.now + window
            let answers = Tally()
            let moderatorTimes = try await withThrowingTaskGroup(of: [Duration].self) { group in
                // 60 addresses, half guessing at the real account, half at made-up names.
                for attacker in 0..<60 {
                    group.addTask {
                        var attempt = 0
                        while ContinuousClock.now < end {
                            attempt += 1
                            let user = attacker % 2 == 0 ? "mod" : "user-\(attacker)-\(attempt)"
                            let response = try await Self.login(http, user, "guess \(attempt)", from: "10.1.0.\(attacker)")
                            answers.count(Int(response.status.code))
                            try await Task.sleep(for: .milliseconds(250))
                        }
                        return []
                    }
                }
                group.addTask {
                    var times: [Duration] = []
                    try await Task.sleep(for: .seconds(1))
                    while ContinuousClock.now < end - .seconds(1) {
                        let started = ContinuousClock.now
                        let response = try await Self.login(http, "mod", "correct horse", from: "10.0.0.1")
                        times.append(ContinuousClock.now - started)
                        #expect(response.status == .ok, "the moderator's login under the spray: \(response.status)")
                        try await Task.sleep(for: .milliseconds(500))
                    }
                    return times
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let checks = gate.checksStarted - before - moderatorTimes.count
            let sorted = moderatorTimes.sorted()
            try #require(sorted.count >= 2, "the moderator logged in \(sorted.count) times: \(sorted)")
            print("LOGIN SPRAY 60 addresses for 10 s: \(checks) bcrypt checks for strangers, answers \(answers.counts); moderator's login median \(sorted[sorted.count / 2]), max \(sorted.last!) over \(sorted.count)")
            // The budget: 5 at once and 30 a minute, so at most 10 in 10 s (and one in flight).
            #expect(checks <= 11, "\(checks) bcrypt checks in 10 s")
            #expect(sorted[sorted.count / 2] < .seconds(2), "the moderator's login took \(sorted[sorted.count / 2]) (median)")
        }
    }
}
