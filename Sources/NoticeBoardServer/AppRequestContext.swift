import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage plus the socket's peer address and its closing.
public struct AppRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// Completes when the connection closes: long responses (streams) end with it.
    public let connectionClosed: EventLoopFuture<Void>

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        connectionClosed = source.channel.closeFuture
    }

    /// Bodies are limited by the API handlers (16 KiB); this is the transport's backstop.
    public var maxUploadSize: Int { 64 * 1024 }
}
