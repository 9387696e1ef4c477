import AsyncHTTPClient
import Foundation
import NIOCore

/// A delivery's call, connected to the address the host policy checked: a name is looked up
/// once, judged, and that address is used (AsyncHTTPClient's `dnsOverride`, which keeps the name
/// for TLS and `Host`), so a second lookup cannot send the call to another address (DNS
/// rebinding). The response's body is read (at most 64 KiB) before it is returned.
enum PinnedCall {
    static func execute(
        _ request: HTTPClientRequest, host: String, pinnedTo address: String?, shared: HTTPClient, deadline: NIODeadline
    ) async throws -> HTTPClientResponse {
        guard let address else {
            let response = try await shared.execute(request, deadline: deadline)
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return response
        }
        // One client per pinned call: AsyncHTTPClient takes overrides per client, not per request.
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration(pinning: host, in: request.url, to: address))
        do {
            let response = try await client.execute(request, deadline: deadline)
            _ = try? await response.body.collect(upTo: 64 * 1024)
            try? await client.shutdown()
            return response
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// The sender's settings, with every spelling of the URL's host mapped to the address.
    static func configuration(pinning host: String, in url: String, to address: String) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(10)))
        for name in [host, URL(string: url)?.host].compactMap({ $0 }) {
            configuration.dnsOverride[name] = address
        }
        return configuration
    }
}
