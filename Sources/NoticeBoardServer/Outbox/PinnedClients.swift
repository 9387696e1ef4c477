import AsyncHTTPClient
import NIOCore
import Synchronization

/// One HTTP client per pinned name and checked address, kept while it is used, so that the
/// pushes to one push service reuse their connections (and TLS sessions) instead of opening one
/// a push: AsyncHTTPClient takes address overrides per client, not per request. A client idle
/// for `idleLifetime` is shut down; past `capacity` a call gets a client of its own for once.
final class PinnedClients: Sendable {
    private struct Entry {
        let client: HTTPClient
        var calls: Int
        var lastUsed: ContinuousClock.Instant
    }

    let capacity: Int
    let idleLifetime: Duration
    private let entries = Mutex<[String: Entry]>([:])

    init(capacity: Int = 64, idleLifetime: Duration = .seconds(60)) {
        self.capacity = capacity
        self.idleLifetime = idleLifetime
    }

    /// How many clients are kept now.
    var count: Int { entries.withLock { $0.count } }

    func withClient<Result: Sendable>(
        host: String, url: String, address: String, _ body: (HTTPClient) async throws -> Result
    ) async throws -> Result {
        let key = host + "\u{0}" + address
        let (kept, retired) = entries.withLock { entries -> (HTTPClient?, [HTTPClient]) in
            let now = ContinuousClock.now
            let idle = entries.filter { $0.value.calls == 0 && now - $0.value.lastUsed > idleLifetime }
            for name in idle.keys { entries[name] = nil }
            let retired = idle.values.map(\.client)
            if var entry = entries[key] {
                entry.calls += 1
                entry.lastUsed = now
                entries[key] = entry
                return (entry.client, retired)
            }
            guard entries.count < capacity else { return (nil, retired) }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: PinnedCall.configuration(pinning: host, in: url, to: address))
            entries[key] = Entry(client: client, calls: 1, lastUsed: now)
            return (client, retired)
        }
        for client in retired { try? await client.shutdown() }
        guard let kept else { return try await once(host: host, url: url, address: address, body) }
        defer { release(key) }
        return try await body(kept)
    }

    private func release(_ key: String) {
        entries.withLock { entries in
            entries[key]?.calls -= 1
            entries[key]?.lastUsed = .now
        }
    }

    private func once<Result: Sendable>(
        host: String, url: String, address: String, _ body: (HTTPClient) async throws -> Result
    ) async throws -> Result {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: PinnedCall.configuration(pinning: host, in: url, to: address))
        do {
            let result = try await body(client)
            try? await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// Shuts every kept client down; called once the sender's calls have ended.
    func shutdown() async {
        let all = entries.withLock { entries in
            defer { entries = [:] }
            return entries.values.map(\.client)
        }
        for client in all { try? await client.shutdown() }
    }
}
