import Hummingbird
import NoticeBoardCore

/// `POST /api/v1/auth/token` (log in) and `DELETE` (log out, with the token to end).
struct AuthRoutes: Sendable {
    let auth: ModeratorAuth
    let identity: ClientIdentity
    let limiter: RateLimiter
    let throttle: LoginThrottle
    /// Attempts from an address the account has not logged in from (every attempt at an unknown
    /// name among them), across all accounts and addresses: spraying names or addresses cannot
    /// buy more bcrypt than this.
    let unvouched: RateLimiter

    /// In any 10 s at most 5 + 5 checks for strangers: a quarter of a core at bcrypt's cost 12.
    static func unvouchedBudget() -> RateLimiter { RateLimiter(ratePerMinute: 30, burst: 5) }

    /// `authenticated` is the `/api/v1/auth` group behind `ModeratorAuthenticator`.
    func register(on routes: Routes<some RouterMethods<AppRequestContext>>, authenticated: Routes<some RouterMethods<AppRequestContext>>) {
        routes.on(.post, "/api/v1/auth/token", use: login)
        authenticated.on(.delete, "/token", use: logout)
    }

    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let client = identity.address(of: request, context: context)
        guard case .object(let body) = try await JSONBody.read(request) else { throw APIError.invalid("the body must be a JSON object") }
        guard case .string(let username)? = body["username"] else { throw APIError.invalid("username is required", field: "username") }
        guard case .string(let password)? = body["password"] else { throw APIError.invalid("password is required", field: "password") }
        // bcrypt reads 72 bytes and stops at NUL: a longer password would log in by its prefix.
        guard password.utf8.count <= ModeratorAuth.maxPasswordBytes, !password.utf8.contains(0) else {
            throw APIError.invalid("password must be at most \(ModeratorAuth.maxPasswordBytes) bytes, without NUL", field: "password")
        }
        // Throttled before bcrypt is paid for. A throttled attempt is refused whatever the
        // password: answering a right one would let the throttle be probed for it.
        let pseudonym = identity.hash(of: client)
        if let wait = throttle.admit(username: username, address: pseudonym) { throw APIError.rateLimited(retryAfterSeconds: wait) }
        if case .limited(let wait) = limiter.reserve(for: client) {
            throttle.finished(username: username, address: pseudonym, succeeded: false, counted: false)
            throw APIError.rateLimited(retryAfterSeconds: wait)
        }
        // The same budget whether the name exists or not, so it tells nothing about names.
        let vouched = throttle.vouches(for: pseudonym, username: username)
        if !vouched, case .limited(let wait) = unvouched.reserve(for: "") {
            throttle.finished(username: username, address: pseudonym, succeeded: false, counted: false)
            limiter.refund(for: client)
            throw APIError.rateLimited(retryAfterSeconds: wait)
        }
        let session: (token: String, expiresAt: Int64)?
        do {
            session = try await auth.login(username: username, password: password, vouched: vouched)
        } catch {
            throttle.finished(username: username, address: pseudonym, succeeded: false, counted: false)
            limiter.refund(for: client)
            if error is BcryptGateError { throw APIError.rateLimited(retryAfterSeconds: 1) }
            throw error
        }
        throttle.finished(username: username, address: pseudonym, succeeded: session != nil)
        guard let session else { throw APIError(.unauthorized, code: "unauthorized", message: "wrong username or password") }
        // Only failures count against an address.
        limiter.refund(for: client)
        return JSONResponse.make(["token": session.token, "expiresAt": Timestamp.format(milliseconds: session.expiresAt)])
    }

    @Sendable func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await auth.revoke(token: try context.moderator().token)
        return Response(status: .noContent)
    }
}
