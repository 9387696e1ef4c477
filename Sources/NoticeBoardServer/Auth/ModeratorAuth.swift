import Foundation
import HummingbirdBcrypt
import NoticeBoardCore

/// Passwords (bcrypt, cost 12) and bearer tokens (256 random bits, stored as SHA-256).
public struct ModeratorAuth: Sendable {
    public static let bcryptCost: UInt8 = 12
    /// bcrypt ignores every byte past the 72nd, so no longer password is ever accepted.
    public static let maxPasswordBytes = 72
    public static let defaultTokenLifetimeSeconds = 12 * 3600
    /// Verified when the user does not exist, so both failures take as long.
    static let decoyHash = Bcrypt.hash("decoy password, never valid", cost: bcryptCost)
    static let unauthorized = APIError(.unauthorized, code: "unauthorized", message: "a valid moderator token is required")

    let accounts: any ModeratorAccountStore
    let tokenLifetimeMilliseconds: Int64
    /// Where every password check runs: a few at once, the rest in line.
    let bcrypt: BcryptGate

    public init(accounts: any ModeratorAccountStore, tokenLifetimeSeconds: Int = defaultTokenLifetimeSeconds, bcrypt: BcryptGate = BcryptGate()) {
        self.accounts = accounts
        tokenLifetimeMilliseconds = Int64(tokenLifetimeSeconds) * 1000
        self.bcrypt = bcrypt
    }

    public static func hashPassword(_ password: String) -> String { Bcrypt.hash(password, cost: bcryptCost) }

    /// A new token for valid credentials, `nil` otherwise (the same for an unknown user).
    /// `vouched`: the address logged in to this account before, so its check goes first in line.
    func login(username: String, password: String, vouched: Bool = false) async throws -> (token: String, expiresAt: Int64)? {
        // No name holds NUL (PostgreSQL cannot store it): such a name is simply unknown.
        let stored = username.contains("\0") ? nil : try await accounts.passwordHash(username: username)
        // Bcrypt is slow by design: on a thread of its own, not on the event loop that serves
        // other requests, and an unknown user costs the same check.
        let matches = try await bcrypt.run(vouched: vouched) { Bcrypt.verify(password, hash: stored ?? Self.decoyHash) }
        guard matches, stored != nil else { return nil }
        let token = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
        let expiresAt = Int64(Date().timeIntervalSince1970 * 1000) + tokenLifetimeMilliseconds
        try await accounts.storeToken(hash: HexDigest.sha256(token), username: username, expiresAt: expiresAt)
        return (token, expiresAt)
    }

    /// The moderator a bearer token belongs to, if it is valid now.
    func moderator(token: String) async throws -> String? {
        try await accounts.moderator(tokenHash: HexDigest.sha256(token))
    }

    func revoke(token: String) async throws { try await accounts.revokeToken(hash: HexDigest.sha256(token)) }
}
