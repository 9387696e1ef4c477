import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix
import NoticeBoardCore

/// Passwords (bcrypt, cost 12) and bearer tokens (256 random bits, stored as SHA-256).
public struct ModeratorAuth: Sendable {
    public static let bcryptCost: UInt8 = 12
    public static let defaultTokenLifetimeSeconds = 12 * 3600
    /// Verified when the user does not exist, so both failures take as long.
    static let decoyHash = Bcrypt.hash("decoy password, never valid", cost: bcryptCost)

    let store: any ModerationStore

    let tokenLifetimeMilliseconds: Int64

    public init(store: any ModerationStore, tokenLifetimeSeconds: Int = defaultTokenLifetimeSeconds) {
        self.store = store
        tokenLifetimeMilliseconds = Int64(tokenLifetimeSeconds) * 1000
    }

    public static func hashPassword(_ password: String) -> String { Bcrypt.hash(password, cost: bcryptCost) }

    /// A new token for valid credentials, `nil` otherwise (the same for an unknown user).
    func login(username: String, password: String) async throws -> (token: String, expiresAt: Int64)? {
        // No name holds NUL (PostgreSQL cannot store it): such a name is simply unknown.
        let stored = username.contains("\0") ? nil : try await store.passwordHash(username: username)
        // A quarter of a second of CPU by design: on a thread of its own, not on the event loop
        // that serves other requests.
        let matches = try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: stored ?? Self.decoyHash) }
        guard matches, stored != nil else { return nil }
        let token = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let expiresAt = Int64(Date().timeIntervalSince1970 * 1000) + tokenLifetimeMilliseconds
        try await store.storeToken(hash: Self.digest(token), username: username, expiresAt: expiresAt)
        return (token, expiresAt)
    }

    /// The moderator a bearer token belongs to, if it is valid now.
    func moderator(token: String) async throws -> String? {
        try await store.moderator(tokenHash: Self.digest(token))
    }

    func revoke(token: String) async throws { try await store.revokeToken(hash: Self.digest(token)) }

    static func digest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
