import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The context of a WebSocket upgrade request (`GET /api/v1/walk`): the peer's address, for the
/// per-client bound on open walks.
struct WalkRequestContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
    }
}
