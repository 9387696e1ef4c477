import HTTPTypes
import Metrics
import NIOCore
import NIOHTTPTypes

/// Keeps one connection within `ConnectionSettings`: refuses it with a JSON 503 when the server
/// or its address has too many open, and closes it when a request head or body does not arrive
/// in time, when the client stops reading a response, or when shutdown has waited long enough.
/// Without it a connection that trickles bytes, or says nothing, is held for ever, and enough
/// of them exhaust the process's descriptors.
///
/// It sits right after the HTTP/1 codec, so it sees requests as heads, bodies and ends, and
/// its refusal is written as an HTTP response (over TLS too).
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ConnectionLimits
    private var address: String?
    private var refused = false
    private var requestsRead = 0
    private var responsesWritten = 0
    private var readingBody = false
    private var readDeadline: Scheduled<Void>?
    private var writeDeadline: Scheduled<Void>?
    private var shutdownDeadline: Scheduled<Void>?

    /// Bodies larger than any the API takes are not invited: the handler answers 413 unread.
    static let largestBodyInvited = 16 * 1024

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
            arm(&readDeadline, after: limits.settings.idleTimeout, phase: "idle", context: context)
        case .tooMany:
            refuse("the server has too many open connections; retry shortly", lingering: false, context: context)
        case .tooManyFromAddress:
            refuse("too many open connections from your address; close some and retry", lingering: limits.startLingering(), context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelDeadlines()
        if let address { limits.release(address) }
        address = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelDeadlines()
        if let address { limits.release(address) }
        address = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(let head) where head.method == .connect:
            // This server is no proxy: 405 and close. SwiftNIO's encoder writes no body after a
            // CONNECT (RFC 9112 forbids one only on a 2xx), so the JSON error is not seen.
            refused = true
            answer(
                APIError(
                    .methodNotAllowed, code: "method_not_allowed", message: "CONNECT is not supported: this is not a proxy",
                    headers: [.allow: "GET, HEAD, POST, PUT, DELETE, OPTIONS"]),
                context: context)
            return
        case .head(let head):
            requestsRead += 1
            // A client that waits for permission to send its body gets it at once; the body
            // limits apply as it arrives.
            let announced = head.headerFields[.contentLength].flatMap { Int($0) } ?? 0
            if head.headerFields[.expect]?.lowercased() == "100-continue", announced <= Self.largestBodyInvited {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
            readingBody = true
            arm(&readDeadline, after: limits.settings.bodyTimeout, phase: "body", context: context)
        case .body:
            break
        case .end:
            readingBody = false
            disarm(&readDeadline)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            responsesWritten += 1
            if responsesWritten >= requestsRead, !readingBody {
                arm(&readDeadline, after: limits.settings.idleTimeout, phase: "idle", context: context)
            }
        }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            disarm(&writeDeadline)
        } else {
            arm(&writeDeadline, after: limits.settings.writeTimeout, phase: "write", context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            arm(&shutdownDeadline, after: limits.settings.shutdownTimeout, phase: "shutdown", context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func arm(_ deadline: inout Scheduled<Void>?, after delay: Duration, phase: String, context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
            Counter(label: "noticeboard_connections_timed_out_total", dimensions: [("phase", phase)]).increment()
            channel.close(promise: nil)
        }
    }

    private func disarm(_ deadline: inout Scheduled<Void>?) {
        deadline?.cancel()
        deadline = nil
    }

    private func cancelDeadlines() {
        disarm(&readDeadline)
        disarm(&writeDeadline)
        disarm(&shutdownDeadline)
    }

    /// Answers 503 with the contract's JSON error and closes, before any request is read.
    /// `lingering` waits for the client to read the answer; at the server's own cap every
    /// descriptor counts, so the connection closes at once.
    private func refuse(_ message: String, lingering: Bool, context: ChannelHandlerContext) {
        refused = true
        answer(
            APIError(.serviceUnavailable, code: "unavailable", message: message, headers: [.retryAfter: "1"]), lingering: lingering,
            context: context)
    }

    /// Writes `error` as the whole response and closes the connection.
    private func answer(_ error: APIError, lingering: Bool = true, context: ChannelHandlerContext) {
        let body = ByteBuffer(string: JSONResponse.encode(error.body))
        var fields: HTTPFields = [
            .contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes), .connection: "close",
            .xContentTypeOptions: "nosniff",
        ]
        fields.append(contentsOf: error.headers)
        let head = HTTPResponse(status: error.status, headerFields: fields)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        let limits = self.limits
        // Closed within a second whatever happens to the write (over TLS it waits for a handshake
        // that may never come), and a lingering refusal gives its place back then.
        channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        if lingering { channel.closeFuture.whenComplete { _ in limits.stopLingering() } }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
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
