import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import NoticeBoardCore
import Testing

@testable import NoticeBoardServer

/// Webhooks, push subscriptions and the walk through the application's own router and
/// services, with the outbox wired as `serve` wires it.
@Suite(.timeLimit(.minutes(3))) struct OutboxRouteTests {
    struct CreatedBody: Decodable { var id: Int64 }
    struct DeliveriesBody: Decodable {
        struct Delivery: Decodable {
            var event: String
            var postId: Int64
        }
        var deliveries: [Delivery]
    }

    /// An app with a moderator and the outbox, which may call loopback only (port 9 there: refused).
    static func app() async throws -> TestApp {
        var app = try await ModerationTests.app()
        app.outbox = true
        app.settings.webhookAllowHosts = ["127.0.0.1"]
        return app
    }

    /// A push subscription's body with fresh keys, for an area of 100 m.
    static func subscription(endpoint: String, lat: Double, lon: Double) throws -> String {
        let subscription: [String: Any] = [
            "subscription": [
                "endpoint": endpoint,
                "keys": [
                    "p256dh": Base64URL.encode(P256.KeyAgreement.PrivateKey().publicKey.x963Representation),
                    "auth": Base64URL.encode((0..<16).map { _ in UInt8.random(in: 0...255) }),
                ],
            ],
            "area": ["lat": lat, "lon": lon, "radius": 100],
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: subscription), as: UTF8.self)
    }

    static let device: HTTPFields = [HTTPField.Name("X-Device-Key")!: "device-key-for-push-02", .contentType: "application/json"]

    @Test func aPostInAWebhooksAreaQueuesItsDelivery() async throws {
        try await Self.app().test { http, _ in
            let token = try await ModerationTests.login(http).decoded(ModerationTests.TokenBody.self).token
            let hook = try await http.postJSON(
                #"{"url": "http://127.0.0.1:9/hook", "secret": "sixteen-characters", "area": {"lat": 10, "lon": 20, "radius": 1000}}"#,
                headers: ModerationTests.bearer(token), uri: "/api/v1/moderation/webhooks")
            #expect(hook.status == .created, "\(String(buffer: hook.body))")
            let hookId = try hook.decoded(CreatedBody.self).id
            let inside = try await http.postJSON(postJSON(lat: 10, lon: 20)).decoded(PostBody.self)
            _ = try await http.postJSON(postJSON(lat: -10, lon: -20))
            let uri = "/api/v1/moderation/webhooks/\(hookId)/deliveries"
            var deliveries: [DeliveriesBody.Delivery] = []
            let deadline = ContinuousClock.now + .seconds(20)
            while deliveries.isEmpty, ContinuousClock.now < deadline {
                let page = try await http.execute(uri: uri, method: .get, headers: ModerationTests.bearer(token))
                #expect(page.status == .ok)
                deliveries = try page.decoded(DeliveriesBody.self).deliveries
                if deliveries.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(deliveries.map(\.event) == ["post.created"], "only the post inside the area")
            #expect(deliveries.map(\.postId) == [inside.id])
            let malformed = try await http.execute(uri: "/api/v1/moderation/webhooks/x1/deliveries", method: .get, headers: ModerationTests.bearer(token))
            #expect(try malformed.status == .notFound && malformed.decoded(ErrorBody.self).error.message == "no such webhook")
        }
    }

    @Test func aPushSubscriptionIsMadeAndEndedByItsDevice() async throws {
        try await Self.app().test { http, _ in
            let body = try Self.subscription(endpoint: "http://127.0.0.1:9/push", lat: 10, lon: 20)
            let created = try await http.postJSON(body, headers: Self.device, uri: "/api/v1/push/subscriptions")
            #expect(created.status == .created, "\(String(buffer: created.body))")
            let uri = "/api/v1/push/subscriptions/\(try created.decoded(CreatedBody.self).id)"
            var other = Self.device
            other[HTTPField.Name("X-Device-Key")!] = "another-device-key-0003"
            #expect(try await http.execute(uri: uri, method: .delete, headers: other).status == .forbidden)
            #expect(try await http.execute(uri: uri, method: .delete, headers: Self.device).status == .noContent)
            let again = try await http.execute(uri: uri, method: .delete, headers: Self.device)
            #expect(try again.status == .notFound && again.decoded(ErrorBody.self).error.message == "no such subscription")
        }
    }

    /// The walk is a WebSocket: through a live server, as HummingbirdTesting's router has no sockets.
    @Test func aWalkerIsShownTheNotesItWalksTo() async throws {
        try await Self.app().test(.live) { http, _ in
            let clock = try await http.postJSON(postJSON(lat: 10, lon: 20, message: "under the clock")).decoded(PostBody.self)
            let gate = try await http.postJSON(postJSON(lat: 10.01, lon: 20, message: "a kilometre north")).decoded(PostBody.self)
            try await http.ws("/api/v1/walk") { inbound, outbound, _ in
                var entered: [Int64] = [], left: [Int64] = []
                try await outbound.write(.text(#"{"lat": 10, "lon": 20, "radius": 100}"#))
                for try await message in inbound.messages(maxSize: 1 << 16) {
                    guard case .text(let text) = message,
                        let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                    else { continue }
                    switch json["type"] as? String {
                    case "enter": entered.append(((json["post"] as? [String: Any])?["id"] as? NSNumber)?.int64Value ?? 0)
                    case "leave": left.append((json["id"] as? NSNumber)?.int64Value ?? 0)
                    default: Issue.record("unexpected: \(text)")
                    }
                    if entered == [clock.id], left.isEmpty {
                        try await outbound.write(.text(#"{"lat": 10.01, "lon": 20, "radius": 100}"#))
                    }
                    if entered.count + left.count == 3 { break }
                }
                #expect(entered == [clock.id, gate.id], "the note where it stands, then the one it walked to")
                #expect(left == [clock.id], "the note it walked away from")
            }
        }
    }
}
