import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Times an HTTP connection's requests: closes it when a request body does not arrive in time or
/// when it sits idle between requests, and refuses CONNECT. Without it a connection that trickles
/// a body, or says nothing, is held for ever, and enough of them exhaust the process's
/// descriptors. Caps, the first head's deadline, slow readers and shutdown are `ConnectionGate`'s.
///
/// It sits right after the HTTP/1 codec, so it sees requests as heads, bodies and ends, and
/// its refusal is written as an HTTP response (over TLS too).
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ConnectionLimits
    private var refused = false
    private var requestsRead = 0
    private var responsesWritten = 0
    private var readingBody = false
    private let deadline = ConnectionDeadlineTimer()

    /// Bodies larger than any the API takes are not invited: the handler answers 413 unread.
    static let largestBodyInvited = 16 * 1024

    init(limits: ConnectionLimits) { self.limits = limits }

    func handlerAdded(context: ChannelHandlerContext) {
        (try? context.pipeline.syncOperations.handler(type: ConnectionGate.self))?.handOver()
        deadline.set(after: limits.settings.idleTimeout, phase: "idle")
        deadline.cover(channel: context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline.stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline.stop()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        deadline.cover(channel: context.channel)
        context.fireChannelReadComplete()
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
            deadline.set(after: limits.settings.bodyTimeout, phase: "body")
        case .body:
            break
        case .end:
            readingBody = false
            deadline.clear()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            responsesWritten += 1
            if responsesWritten >= requestsRead, !readingBody {
                deadline.set(after: limits.settings.idleTimeout, phase: "idle")
                deadline.cover(channel: context.channel)
            }
        }
        context.write(data, promise: promise)
    }

    /// Writes `error` as the whole response and closes the connection once the client has read it.
    private func answer(_ error: APIError, context: ChannelHandlerContext) {
        let body = ByteBuffer(string: JSONResponse.encode(error.body))
        var fields: HTTPFields = [
            .contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes), .connection: "close",
            .xContentTypeOptions: "nosniff",
        ]
        fields.append(contentsOf: error.headers)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: error.status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        // A close with unread request bytes pending resets the connection and can lose the
        // answer; shutting the write side first lets the client read it.
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(mode: .output, promise: nil) }
    }
}
