/// Signed VAPID headers by audience (a push service's origin), reused until an hour before
/// their token expires: one ECDSA signature per push service for most of a token's life.
struct VAPIDTokenCache: Sendable {
    static let renewBefore = 3600
    /// Audiences are push services, a handful; the bound keeps made-up ones harmless.
    static let maxAudiences = 1000

    private var headers: [String: (header: String, expires: Int)] = [:]

    func header(for audience: String, now: Int) -> String? {
        guard let cached = headers[audience], cached.expires - now > Self.renewBefore else { return nil }
        return cached.header
    }

    mutating func sign(for audience: String, now: Int, with vapid: VAPID) throws -> String {
        let header = try vapid.authorization(audience: audience, now: now)
        if headers.count >= Self.maxAudiences { headers.removeAll() }
        headers[audience] = (header, now + VAPID.tokenLifetimeSeconds)
        return header
    }
}
