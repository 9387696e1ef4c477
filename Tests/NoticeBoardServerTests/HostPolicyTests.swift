import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import NoticeBoardCore
import Testing

@testable import NoticeBoardServer

/// Issue 37: hosts that embed a loopback or private address in another spelling are judged by
/// the address they embed; lookups run after the rate limit, on threads of their own; a call
/// connects to the address that was checked.
@Suite(.timeLimit(.minutes(3))) struct HostPolicyTests {
    @Test func addressesThatEmbedAnotherAreJudgedByIt() {
        let refused = [
            "::127.0.0.1", "::10.0.0.1", "::ffff:0:7f00:1", "::ffff:0:a00:1", "2002:7f00:1::", "2002:a00:1::", "2002:c0a8:101::1",
            "192.88.99.1", "2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2",
        ]
        for text in refused { #expect(IPAddress(text)?.isPublic == false, "\(text)") }
        for text in ["2002:808:808::", "::8.8.8.8", "2001:4860:4860::8888", "192.88.98.1"] { #expect(IPAddress(text)?.isPublic == true, "\(text)") }
    }

    @Test func zoneIdsAndTrailingDotsDoNotSlipPast() async throws {
        let strict = HostPolicy(allowedHosts: [])
        let urls = [
            "http://[::127.0.0.1]/x", "http://[::ffff:0:7f00:1]/x", "http://[2002:7f00:1::]/x", "http://[::1%25lo]/x", "http://[fe80::1%25eth0]:8080/x",
            "http://localhost./x", "http://127.0.0.1./x", "http://a.localhost./x", "http://192.88.99.1/x", "http://[2001::1]/x",
        ]
        for text in urls {
            let verdict = await strict.check(try DeliveryURL(text, field: "url"))
            #expect(verdict != .allowed && verdict != .unresolved, "\(text): \(verdict)")
        }
        #expect(await strict.check(try DeliveryURL("https://8.8.8.8./x", field: "url")) == .allowed)
        let allowing = HostPolicy(allowedHosts: ["hooks.example.org"])
        #expect(await allowing.check(try DeliveryURL("https://hooks.example.org./x", field: "url")) == .allowed)
        #expect(await allowing.check(try DeliveryURL("https://other.example.org/x", field: "url")) != .allowed)
    }

    @Test func lookupsDoNotWaitForBcrypt() async throws {
        // Both of bcrypt's threads held, as under a spray of logins, until the lookup has answered:
        // a lookup that needed one of them would run out its deadline and answer nil.
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let busy = (0..<2).map { _ in
            BcryptGate.threads.runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.any()) {
                started.signal()
                _ = release.wait(timeout: .now() + 60)
            }
        }
        for _ in 0..<2 { #expect(started.wait(timeout: .now() + 30) == .success, "bcrypt's threads took the jobs") }
        let addresses = await HostPolicy.resolve("localhost")
        release.signal()
        release.signal()
        #expect(addresses?.isEmpty == false, "the lookup answered while bcrypt's threads were held")
        for job in busy { _ = try await job.get() }
    }

    @Test func theCallConnectsToTheAddressThatWasCheckedAndKeepsItsClient() async throws {
        let pinned = PinnedClients(capacity: 1)
        let statuses = try await TestApp.make().test(.live) { (http, _) async throws -> [UInt] in
            var statuses: [UInt] = []
            for _ in 0..<3 { statuses.append(try await Self.callPinned(port: http.port ?? 0, host: "pinned.invalid", clients: pinned)) }
            #expect(pinned.count == 1, "one client for the name and its address, reused")
            // Past the capacity a call is still made, on a client of its own.
            statuses.append(try await Self.callPinned(port: http.port ?? 0, host: "other.invalid", clients: pinned))
            #expect(pinned.count == 1)
            return statuses
        }
        #expect(statuses == [200, 200, 200, 200])
        await pinned.shutdown()
        #expect(pinned.count == 0)
    }

    @Test func anIdleClientIsShutDown() async throws {
        let pinned = PinnedClients(capacity: 4, idleLifetime: .milliseconds(100))
        try await TestApp.make().test(.live) { http, _ in
            #expect(try await Self.callPinned(port: http.port ?? 0, host: "first.invalid", clients: pinned) == 200)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await Self.callPinned(port: http.port ?? 0, host: "second.invalid", clients: pinned) == 200)
            #expect(pinned.count == 1, "the first name's client was idle past its lifetime")
        }
        await pinned.shutdown()
    }

    /// A call to a name that resolves nowhere: only the pinned address can answer it.
    static func callPinned(port: Int, host: String, clients: PinnedClients) async throws -> UInt {
        var request = HTTPClientRequest(url: "http://\(host):\(port)/healthz")
        request.method = .GET
        let deadline = NIODeadline.now() + TimeAmount.seconds(10)
        let response = try await PinnedCall.execute(
            request, host: host, pinnedTo: "127.0.0.1", shared: HTTPClient.shared, pinned: clients, deadline: deadline)
        return response.status.code
    }

    @Test func thePushRateLimitComesBeforeTheEndpointIsLookedUp() async throws {
        var app = try await TestApp.make()
        app.outbox = true
        try await app.test { http, _ in
            let body = try OutboxRouteTests.subscription(endpoint: "http://10.0.0.9/push", lat: 1, lon: 1)
            let headers: HTTPFields = [HTTPField.Name("X-Device-Key")!: "device-key-for-push-01"]
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<6 { statuses.append(try await http.postJSON(body, headers: headers, uri: "/api/v1/push/subscriptions").status) }
            #expect(statuses.prefix(5).allSatisfy { $0 == .badRequest }, "\(statuses)")
            #expect(statuses.last == .tooManyRequests, "refused endpoints spend the address's budget: \(statuses)")
        }
    }
}
