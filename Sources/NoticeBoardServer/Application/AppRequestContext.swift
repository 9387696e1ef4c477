import Hummingbird
import HummingbirdAuth
import NIOCore

/// The request context: Hummingbird's core storage plus the socket's peer address, its closing,
/// and the moderator a bearer token authenticated (on the routes that ask for one).
public struct AppRequestContext: AuthRequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// Completes when the connection closes: long responses (streams) end with it.
    public let connectionClosed: EventLoopFuture<Void>
    /// Set by `ModeratorAuthenticator`.
    public var identity: Moderator?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        connectionClosed = source.channel.closeFuture
    }

    /// Bodies are limited by the API handlers (16 KiB); this is the transport's backstop.
    public var maxUploadSize: Int { 64 * 1024 }

    /// The authenticated moderator; only routes behind `ModeratorAuthenticator` ask.
    func moderator() throws -> Moderator {
        guard let identity else { throw ModeratorAuth.unauthorized }
        return identity
    }
}
