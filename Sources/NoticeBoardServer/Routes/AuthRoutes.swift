import Hummingbird
import NoticeBoardCore

/// `POST /api/v1/auth/token` (log in) and `DELETE` (log out, with the token to end).
struct AuthRoutes: Sendable {
    let auth: ModeratorAuth
    let identity: ClientIdentity
    let limiter: RateLimiter
    let throttle: LoginThrottle

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
        // Throttled before bcrypt is paid for. A throttled attempt is refused whatever the
        // password: answering a right one would let the throttle be probed for it.
        let pseudonym = identity.hash(of: client)
        if let wait = throttle.admit(username: username, address: pseudonym) { throw APIError.rateLimited(retryAfterSeconds: wait) }
        if case .limited(let wait) = limiter.reserve(for: client) {
            throttle.finished(username: username, address: pseudonym, succeeded: false, counted: false)
            throw APIError.rateLimited(retryAfterSeconds: wait)
        }
        let session: (token: String, expiresAt: Int64)?
        do {
            session = try await auth.login(username: username, password: password)
        } catch {
            throttle.finished(username: username, address: pseudonym, succeeded: false, counted: false)
            limiter.refund(for: client)
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
