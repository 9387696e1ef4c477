import Metrics
import NIOCore

/// The first handler of every connection, before any HTTP parsing: admits it against
/// `ConnectionSettings`' caps (or refuses it with a JSON 503), closes it when its first request
/// head does not arrive in time, when the client stops reading, or when shutdown has waited long
/// enough. It works on bytes because WebSocket upgrades add the HTTP handlers only after a whole
/// first request head has arrived, so only a handler in front of them sees a connection that
/// trickles that head or never sends it.
///
/// Once an HTTP request is under way `ConnectionGuard` times its body and the idle gaps between
/// requests, and takes the head deadline over; a WebSocket takes it over with its first response.
final class ConnectionGate: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = IOData

    private let limits: ConnectionLimits
    private var address: String?
    private var refused = false
    private var headDeadline: Scheduled<Void>?
    private var writeDeadline: Scheduled<Void>?
    private var shutdownDeadline: Scheduled<Void>?
    /// Whether a request head has arrived (the HTTP handlers or a WebSocket took over).
    private var handedOver = false
    /// Upgraded to a WebSocket (a walk): closed after `walkIdleTimeout` without a frame from the client.
    private var webSocket = false
    /// Until the first answer: what came after the first head, in case it turns into a WebSocket.
    private var afterHead = BytesAfterHead()
    /// A WebSocket's client frames, followed to close it at the first one without a mask.
    private var masks: ClientFrameMasks?
    private let silence = ConnectionDeadlineTimer()

    init(limits: ConnectionLimits) { self.limits = limits }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { opened(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        opened(context: context)
        context.fireChannelActive()
    }

    private func opened(context: ChannelHandlerContext) {
        guard address == nil, !refused else { return }
        let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
        switch limits.admit(peer) {
        case .admitted:
            address = peer
            ConnectionDeadline.arm(&headDeadline, after: limits.settings.idleTimeout, phase: "idle", context: context)
        case .tooMany:
            refuse("the server has too many open connections; retry shortly", lingering: false, context: context)
        case .tooManyFromAddress, .reserved:
            refuse("too many open connections from your address; close some and retry", lingering: limits.startLingering(), context: context)
        }
    }

    /// From here the request's own handlers time the connection.
    func handOver() {
        handedOver = true
        afterHead = BytesAfterHead()
        ConnectionDeadline.disarm(&headDeadline)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        if !handedOver { afterHead.record(unwrapInboundIn(data).readableBytesView) }
        if webSocket {
            silence.set(after: limits.settings.walkIdleTimeout, phase: "walk-silence")
            if masks?.admit(unwrapInboundIn(data).readableBytesView) == false { return refuseUnmasked(context: context) }
        }
        context.fireChannelRead(data)
    }

    /// RFC 6455 5.1: a client's frame without a mask ends the connection with a protocol error;
    /// nothing more from it is read.
    private func refuseUnmasked(context: ChannelHandlerContext) {
        refused = true
        masks = nil
        Counter(label: "noticeboard_walk_frames_refused_total", dimensions: [("reason", "unmasked")]).increment()
        Self.closeWebSocket(context.channel, code: 1002, reason: "client frames must be masked")
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if webSocket { silence.cover(channel: context.channel) }
        context.fireChannelReadComplete()
    }

    /// A connection's first bytes out answer its first head; `101` means it is a WebSocket now.
    static let switchingProtocols = Array("HTTP/1.1 101".utf8)

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !handedOver, case .byteBuffer(let bytes) = unwrapOutboundIn(data), bytes.readableBytesView.starts(with: Self.switchingProtocols) {
            webSocket = true
            // Frames that came right behind the upgrade request were passed on before this answer.
            if !afterHead.overflowed {
                var frames = ClientFrameMasks()
                if frames.admit(ByteBuffer(bytes: afterHead.bytes).readableBytesView) {
                    masks = frames
                } else {
                    refused = true
                    let channel = context.channel
                    context.eventLoop.execute { Self.closeWebSocket(channel, code: 1002, reason: "client frames must be masked") }
                }
            }
            afterHead = BytesAfterHead()
            let seconds = limits.settings.walkIdleTimeout.components.seconds
            silence.onExpiry = { channel in
                Self.closeWebSocket(channel, code: 1000, reason: "nothing received for \(seconds) s")
            }
            silence.set(after: limits.settings.walkIdleTimeout, phase: "walk-silence")
            silence.cover(channel: context.channel)
        }
        handOver()
        context.write(data, promise: promise)
    }

    /// Writes a WebSocket close frame (unmasked, as a server's are) straight to the socket and
    /// closes the connection once it is out, or within a second whatever happens to the write.
    static func closeWebSocket(_ channel: any Channel, code: UInt16, reason: String) {
        guard let context = try? channel.pipeline.syncOperations.context(handlerType: ConnectionGate.self) else {
            return channel.close(promise: nil)
        }
        let reasonBytes = Array(reason.utf8.prefix(123))
        var frame = ByteBuffer()
        frame.writeInteger(UInt8(0x88))
        frame.writeInteger(UInt8(2 + reasonBytes.count))
        frame.writeInteger(code)
        frame.writeBytes(reasonBytes)
        channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        context.writeAndFlush(NIOAny(IOData.byteBuffer(frame))).whenComplete { _ in channel.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closed()
    }

    private func closed() {
        silence.stop()
        ConnectionDeadline.disarm(&headDeadline)
        ConnectionDeadline.disarm(&writeDeadline)
        ConnectionDeadline.disarm(&shutdownDeadline)
        if let address { limits.release(address) }
        address = nil
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            ConnectionDeadline.disarm(&writeDeadline)
        } else {
            ConnectionDeadline.arm(&writeDeadline, after: limits.settings.writeTimeout, phase: "write", context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            // Nothing to finish on a connection still sending its first head, or on a walk: they
            // close at once; requests under way get the shutdown timeout.
            if !handedOver {
                Counter(label: "noticeboard_connections_timed_out_total", dimensions: [("phase", "shutdown")]).increment()
                context.close(promise: nil)
                return
            }
            if webSocket {
                Self.closeWebSocket(context.channel, code: 1001, reason: "the server is shutting down")
                return
            }
            ConnectionDeadline.arm(&shutdownDeadline, after: limits.settings.shutdownTimeout, phase: "shutdown", context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Answers 503 with the contract's JSON error and closes, before any request is read.
    /// `lingering` waits for the client to read the answer; at the server's own cap every
    /// descriptor counts, so the connection closes at once.
    private func refuse(_ message: String, lingering: Bool, context: ChannelHandlerContext) {
        refused = true
        let error = APIError(.serviceUnavailable, code: "unavailable", message: message, headers: [.retryAfter: "1"])
        let channel = context.channel
        let limits = self.limits
        // Closed within a second whatever happens to the write (over TLS it waits for a handshake
        // that may never come), and a lingering refusal gives its place back then.
        channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        if lingering { channel.closeFuture.whenComplete { _ in limits.stopLingering() } }
        context.writeAndFlush(NIOAny(IOData.byteBuffer(RawHTTPResponse.closing(error)))).whenComplete { _ in
            guard lingering else {
                channel.close(promise: nil)
                return
            }
            // A close with unread request bytes pending resets the connection and can lose the
            // answer; shutting the write side first lets the client read it.
            channel.close(mode: .output, promise: nil)
        }
    }
}

/// A connection's timers: each closes the connection when it fires, counted by phase.
enum ConnectionDeadline {
    static func arm(_ deadline: inout Scheduled<Void>?, after delay: Duration, phase: String, context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: TimeAmount(delay)) { expire(channel, phase: phase) }
    }

    /// Closes a connection whose deadline passed, counted by phase.
    static func expire(_ channel: any Channel, phase: String) {
        Counter(label: "noticeboard_connections_timed_out_total", dimensions: [("phase", phase)]).increment()
        channel.close(promise: nil)
    }

    static func disarm(_ deadline: inout Scheduled<Void>?) {
        deadline?.cancel()
        deadline = nil
    }
}
