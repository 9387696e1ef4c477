import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NoticeBoardCore

/// Who is asking: the socket's peer, or the `X-Forwarded-For` client when the peer is a
/// trusted proxy; and the keyed hash of that address that moderators see as `clientId`.
public struct ClientIdentity: Sendable {
    let trustedProxies: Set<String>
    let hashKey: SymmetricKey

    public init(trustedProxies: [String], hashKey: SymmetricKey) {
        self.trustedProxies = Set(trustedProxies)
        self.hashKey = hashKey
    }

    /// Walks `X-Forwarded-For` from the right while the hop is a trusted proxy; the first
    /// untrusted hop is the client. Without a trusted peer the header is ignored (it is forgeable).
    public func address(peer: SocketAddress?, forwardedFor: String?) -> String {
        let peerAddress = peer?.ipAddress ?? "unknown"
        guard trustedProxies.contains(peerAddress), let forwardedFor else { return peerAddress }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for hop in hops.reversed() where !trustedProxies.contains(hop) { return hop }
        return hops.first ?? peerAddress
    }

    /// A stable pseudonym of an address: HMAC-SHA256 under the server's key, 128 bits in hex.
    public func hash(of address: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data(address.utf8), using: hashKey)
        return HexDigest.hex(code.prefix(16))
    }

    /// A device key's keyed hash: the same HMAC key as addresses, in its own domain.
    public func deviceHash(of key: String) -> String {
        hash(of: "device:" + key)
    }

    static let forwardedForHeader = HTTPField.Name("X-Forwarded-For")!
    static let deviceKeyHeader = HTTPField.Name(DeviceKey.header)!

    /// The keyed hash of the request's `X-Device-Key`, `nil` without one; a malformed key is a 400.
    func deviceHash(of request: Request) throws(ValidationError) -> String? {
        guard let key = request.headers[Self.deviceKeyHeader] else { return nil }
        return deviceHash(of: try DeviceKey.validated(key))
    }

    /// The client of a request (see `address(peer:forwardedFor:)`).
    func address(of request: Request, context: some RemoteAddressRequestContext) -> String {
        address(peer: context.remoteAddress, forwardedFor: request.headers[Self.forwardedForHeader])
    }
}

extension ClientIdentity {
    /// The device key's hash, for routes that need one: 400 on `X-Device-Key` when absent or malformed.
    func requiredDeviceHash(of request: Request) throws -> String {
        guard let hash = try deviceHash(of: request) else {
            throw APIError.invalid("\(DeviceKey.header) is required", field: DeviceKey.header)
        }
        return hash
    }
}
