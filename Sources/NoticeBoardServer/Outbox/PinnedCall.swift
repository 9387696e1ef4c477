import AsyncHTTPClient
import Foundation
import NIOCore

/// A delivery's call, connected to the address the host policy checked: a name is looked up
/// once, judged, and that address is used (AsyncHTTPClient's `dnsOverride`, which keeps the name
/// for TLS and `Host`), so a second lookup cannot send the call to another address (DNS
/// rebinding). The response's body is read (at most 64 KiB) before it is returned.
enum PinnedCall {
    static func execute(
        _ request: HTTPClientRequest, host: String, pinnedTo address: String?, shared: HTTPClient, pinned: PinnedClients,
        deadline: NIODeadline
    ) async throws -> HTTPClientResponse {
        guard let address else { return try await call(request, on: shared, deadline: deadline) }
        return try await pinned.withClient(host: host, url: request.url, address: address) { client in
            try await call(request, on: client, deadline: deadline)
        }
    }

    private static func call(_ request: HTTPClientRequest, on client: HTTPClient, deadline: NIODeadline) async throws -> HTTPClientResponse {
        let response = try await client.execute(request, deadline: deadline)
        _ = try? await response.body.collect(upTo: 64 * 1024)
        return response
    }

    /// The sender's settings, with every spelling of the URL's host mapped to the address.
    static func configuration(pinning host: String, in url: String, to address: String) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(10)))
        configuration.connectionPool = .init(idleTimeout: .seconds(30))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = OutboxSender.maxPerHost
        for name in [host, URL(string: url)?.host].compactMap({ $0 }) {
            configuration.dnsOverride[name] = address
        }
        return configuration
    }
}
