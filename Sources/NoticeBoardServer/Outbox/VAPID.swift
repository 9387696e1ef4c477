import Crypto
import Foundation
import NoticeBoardCore

/// The server's application-server identity for Web Push (RFC 8292): one P-256 key pair for the
/// deployment, kept in the database, and the signed token each push carries.
struct VAPID: Sendable {
    static let keyName = "vapid"
    /// How long a token stays valid; RFC 8292 allows at most 24 hours.
    static let tokenLifetimeSeconds = 12 * 3600

    let key: P256.Signing.PrivateKey
    /// `mailto:` or `https:` contact for push services.
    let subject: String

    init(rawKey: [UInt8], subject: String) throws {
        key = try P256.Signing.PrivateKey(rawRepresentation: rawKey)
        self.subject = subject
    }

    static func load(from store: any OutboxStore, subject: String) async throws -> VAPID {
        try VAPID(rawKey: try await store.serverKey(named: keyName) { [UInt8](P256.Signing.PrivateKey().rawRepresentation) }, subject: subject)
    }

    /// The uncompressed public point, URL-safe base64: what browsers pass as `applicationServerKey`.
    var publicKey: String { Base64URL.encode(key.publicKey.x963Representation) }

    /// `Authorization: vapid t=<JWT>, k=<public key>` for a push to `audience` (the endpoint's origin).
    func authorization(audience: String, now: Int = Int(Date().timeIntervalSince1970)) throws -> String {
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims = JSONResponse.encode(Claims(aud: audience, exp: now + Self.tokenLifetimeSeconds, sub: subject))
        let signingInput = header + "." + Base64URL.encode(Array(claims.utf8))
        let signature = try key.signature(for: Data(signingInput.utf8))
        return "vapid t=\(signingInput).\(Base64URL.encode(signature.rawRepresentation)), k=\(publicKey)"
    }

    private struct Claims: Encodable {
        let aud: String
        let exp: Int
        let sub: String
    }
}
