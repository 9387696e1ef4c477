import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix
import Synchronization
import NoticeBoardCore

/// Which hosts the server may call (webhooks, push endpoints). With `--webhook-allow-host` given,
/// exactly the hosts it names (whatever they resolve to); by default any public address and never
/// loopback, private, link-local or otherwise reserved ones, so that a URL cannot make the server
/// reach into its own network (server-side request forgery).
struct HostPolicy: Sendable {
    let allowedHosts: Set<String>

    init(allowedHosts: [String]) {
        self.allowedHosts = Set(allowedHosts.map { Self.canonical($0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))) })
    }

    /// A host as it is judged: without the root's trailing dot (`localhost.` is `localhost`) and
    /// without an IPv6 zone id (`::1%25lo` is `::1`), so neither slips past the address classes.
    static func canonical(_ host: String) -> String {
        var host = Substring(host)
        if let zone = host.firstIndex(of: "%"), host.contains(":") { host = host[..<zone] }
        while host.count > 1, host.hasSuffix(".") { host = host.dropLast() }
        return String(host)
    }

    enum Verdict: Equatable {
        case allowed
        case refused(String)
        /// The name does not resolve now: allowed to be stored, checked again at each send.
        case unresolved
    }

    /// Checks a URL's host: an address literal directly, a name by resolving it.
    func check(_ url: DeliveryURL) async -> Verdict {
        switch await pin(url) {
        case .connect: .allowed
        case .refused(let reason): .refused(reason)
        case .unresolved: .unresolved
        }
    }

    /// Where a call to the URL may connect: checked as `check` does, and for a resolved name the
    /// address that was checked, so the call cannot be sent elsewhere by a second lookup
    /// answering differently (DNS rebinding).
    enum Pin: Equatable {
        /// `nil`: connect by the URL's own host (an address literal, or a host the operator allowed).
        case connect(to: String?)
        case refused(String)
        case unresolved
    }

    func pin(_ url: DeliveryURL) async -> Pin {
        let host = Self.canonical(url.host)
        if !allowedHosts.isEmpty {
            return allowedHosts.contains(host) ? .connect(to: nil) : .refused("is not among the hosts allowed with --webhook-allow-host")
        }
        if host == "localhost" || host.hasSuffix(".localhost") {
            return .refused("must not point at this machine (loopback); allow the host with --webhook-allow-host")
        }
        if let address = IPAddress(host) {
            return address.isPublic ? .connect(to: nil) : .refused("must not point at a loopback, private or reserved address; allow the host with --webhook-allow-host")
        }
        // A zone id on anything but an IPv6 literal, or a literal in another spelling, is no name.
        guard !url.host.contains("%"), !url.host.contains(":") else { return .refused("is not a valid host name") }
        guard let addresses = await Self.resolve(host), let first = addresses.first else { return .unresolved }
        if let address = addresses.first(where: { !$0.isPublic }) {
            return .refused("resolves to \(address), a loopback, private or reserved address; allow the host with --webhook-allow-host")
        }
        return .connect(to: first.description)
    }

    /// Name lookups block a thread each: they get threads of their own, so slow names never hold
    /// up bcrypt's (logins) or NIO's shared pool.
    static let resolverThreads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 4)
        pool.start()
        return pool
    }()

    /// A lookup that takes longer counts as not resolving now.
    static let resolveDeadline = TimeAmount.seconds(5)

    /// Every address the name resolves to, or `nil` when it does not resolve (in time).
    static func resolve(_ host: String) async -> [IPAddress]? {
        let answer = Mutex<CheckedContinuation<[IPAddress]?, Never>?>(nil)
        let finish = { @Sendable (addresses: [IPAddress]?) in
            let waiting = answer.withLock { waiting in
                defer { waiting = nil }
                return waiting
            }
            waiting?.resume(returning: addresses)
        }
        return await withCheckedContinuation { continuation in
            answer.withLock { $0 = continuation }
            let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: resolveDeadline) { finish(nil) }
            let lookup = resolverThreads.runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.any()) { lookUp(host) }
            lookup.whenComplete { result in
                timer.cancel()
                finish((try? result.get()) ?? nil)
            }
        }
    }

    private static func lookUp(_ host: String) -> [IPAddress]? {
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
        // Addresses that carry an IPv4 address are judged by it: IPv4-mapped (::ffff:a.b.c.d),
        // IPv4-compatible (::a.b.c.d, and :: and ::1 with it), IPv4-translated
        // (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::).
        if b[0..<10].allSatisfy({ $0 == 0 }), b[10] == 0xff, b[11] == 0xff { return Self.isPublicV4(Array(b[12...])) }
        if b[0..<12].allSatisfy({ $0 == 0 }) { return Self.isPublicV4(Array(b[12...])) }
        if b[0..<8].allSatisfy({ $0 == 0 }), b[8] == 0xff, b[9] == 0xff, b[10] == 0, b[11] == 0 { return Self.isPublicV4(Array(b[12...])) }
        if b[0] == 0, b[1] == 0x64, b[2] == 0xff, b[3] == 0x9b, b[4..<12].allSatisfy({ $0 == 0 }) { return Self.isPublicV4(Array(b[12...])) }
        if b[0] == 0x20, b[1] == 0x02 { return Self.isPublicV4(Array(b[2..<6])) }
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0, b[3] == 0 { return false }  // Teredo: tunnels to an address it hides
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
        case (192, 0, 0), (192, 0, 2), (192, 88, 99), (192, 168, _), (198, 18...19, _), (198, 51, 100), (203, 0, 113): return false
        case (224...255, _, _): return false  // multicast, reserved, broadcast
        default: return true
        }
    }
}
