import Hummingbird
import HummingbirdAuth

/// Puts the moderator named by `Authorization: Bearer <token>` in the request context, or
/// answers 401 before the route runs: every route behind it is for moderators only.
struct ModeratorAuthenticator: AuthenticatorMiddleware {
    typealias Context = AppRequestContext
    let auth: ModeratorAuth

    func authenticate(request: Request, context: Context) async throws -> Moderator? {
        let token = try Self.bearerToken(request)
        guard let name = try await auth.moderator(token: token) else { throw ModeratorAuth.unauthorized }
        return Moderator(name: name, token: token)
    }

    static func bearerToken(_ request: Request) throws -> String {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else { throw ModeratorAuth.unauthorized }
        let token = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.count <= 200 else { throw ModeratorAuth.unauthorized }
        return token
    }
}
