import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOPosix
import NoticeBoardCore

/// Which hosts the server may call (webhooks, push endpoints). With `--webhook-allow-host` given,
/// exactly the hosts it names (whatever they resolve to); by default any public address and never
/// loopback, private, link-local or otherwise reserved ones, so that a URL cannot make the server
/// reach into its own network (server-side request forgery).
struct HostPolicy: Sendable {
    let allowedHosts: Set<String>

    init(allowedHosts: [String]) {
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")) })
    }

    enum Verdict: Equatable {
        case allowed
        case refused(String)
        /// The name does not resolve now: allowed to be stored, checked again at each send.
        case unresolved
    }

    /// Checks a URL's host: an address literal directly, a name by resolving it.
    func check(_ url: DeliveryURL) async -> Verdict {
        if !allowedHosts.isEmpty {
            return allowedHosts.contains(url.host) ? .allowed : .refused("is not among the hosts allowed with --webhook-allow-host")
        }
        if url.host == "localhost" || url.host.hasSuffix(".localhost") {
            return .refused("must not point at this machine (loopback); allow the host with --webhook-allow-host")
        }
        if let address = IPAddress(url.host) {
            return address.isPublic ? .allowed : .refused("must not point at a loopback, private or reserved address; allow the host with --webhook-allow-host")
        }
        guard let addresses = await Self.resolve(url.host), !addresses.isEmpty else { return .unresolved }
        if let address = addresses.first(where: { !$0.isPublic }) {
            return .refused("resolves to \(address), a loopback, private or reserved address; allow the host with --webhook-allow-host")
        }
        return .allowed
    }

    /// Every address the name resolves to, or `nil` when it does not resolve. Name lookup blocks,
    /// so it runs on NIO's thread pool.
    static func resolve(_ host: String) async -> [IPAddress]? {
        try? await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var result: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return nil }
            defer { freeaddrinfo(first) }
            var addresses: [IPAddress] = []
            var cursor: UnsafeMutablePointer<addrinfo>? = first
            while let info = cursor {
                if let address = IPAddress(info.pointee.ai_addr) { addresses.append(address) }
                cursor = info.pointee.ai_next
            }
            return addresses
        }
    }
}

/// An IPv4 or IPv6 address, for classifying where a host points.
struct IPAddress: Sendable, Equatable, CustomStringConvertible {
    /// 4 or 16 bytes.
    let bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    init?(_ socketAddress: UnsafeMutablePointer<sockaddr>?) {
        guard let socketAddress else { return nil }
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            bytes = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            bytes = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }

    var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }

    /// Routable on the public internet: none of the special-purpose ranges (RFC 6890 and kin).
    var isPublic: Bool {
        if bytes.count == 4 { return Self.isPublicV4(bytes) }
        let b = bytes
        // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) carry an IPv4 address to judge.
        if b[0..<10].allSatisfy({ $0 == 0 }), b[10] == 0xff, b[11] == 0xff { return Self.isPublicV4(Array(b[12...])) }
        if b[0] == 0, b[1] == 0x64, b[2] == 0xff, b[3] == 0x9b, b[4..<12].allSatisfy({ $0 == 0 }) { return Self.isPublicV4(Array(b[12...])) }
        if b[0..<15].allSatisfy({ $0 == 0 }) { return false }  // :: and ::1
        if b[0] & 0xfe == 0xfc { return false }  // fc00::/7 unique local
        if b[0] == 0xfe, b[1] & 0xc0 == 0x80 { return false }  // fe80::/10 link-local
        if b[0] == 0xfe, b[1] & 0xc0 == 0xc0 { return false }  // fec0::/10 site-local
        if b[0] == 0xff { return false }  // multicast
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0x0d, b[3] == 0xb8 { return false }  // documentation
        if b[0] == 0x01, b[1] == 0x00, b[2..<8].allSatisfy({ $0 == 0 }) { return false }  // discard-only
        return true
    }

    private static func isPublicV4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1], b[2]) {
        case (0, _, _), (10, _, _), (127, _, _): return false
        case (100, 64...127, _): return false  // carrier-grade NAT
        case (169, 254, _): return false
        case (172, 16...31, _): return false
        case (192, 0, 0), (192, 0, 2), (192, 168, _), (198, 18...19, _), (198, 51, 100), (203, 0, 113): return false
        case (224...255, _, _): return false  // multicast, reserved, broadcast
        default: return true
        }
    }
}
