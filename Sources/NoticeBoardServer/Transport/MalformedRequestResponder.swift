import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request the HTTP decoder cannot parse — a request line or header over the decoder's
/// limits (`ServerSettings.serverBuilder`), or broken syntax — with the contract's JSON error.
/// Hummingbird alone answers such a request with an empty 400, and the contract wants every error
/// to carry a JSON body. The connection is closed afterwards, as the decoder cannot resume.
///
/// It sits after the HTTP/1 codec and keeps the order of responses on a keep-alive connection:
/// when a response to an earlier request is still owed, ours waits until that one has been written.
/// A body that breaks off mid-request (bad chunk framing) belongs to the handler reading it, so
/// that error goes on and `ErrorTranslator` answers it.
final class MalformedRequestResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var responsesOwed = 0
    private var receivingBody = false
    private var pendingError: HTTPParserError?
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            responsesOwed += 1
            receivingBody = true
        case .body: break
        case .end: receivingBody = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let isEnd = if case .end = unwrapOutboundIn(data) { true } else { false }
        context.write(data, promise: promise)
        guard isEnd else { return }
        responsesOwed -= 1
        if responsesOwed == 0, let pendingError { answer(pendingError, context: context) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, !receivingBody else {
            context.fireErrorCaught(error)
            return
        }
        if responsesOwed > 0 {
            pendingError = parserError
        } else {
            answer(parserError, context: context)
        }
    }

    private func answer(_ error: HTTPParserError, context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let refusal = APIError.invalid(Self.message(for: error))
        let body = ByteBuffer(string: JSONResponse.encode(refusal.body))
        let head = HTTPResponse(status: refusal.status, headerFields: [
            .contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes), .connection: "close",
            .xContentTypeOptions: "nosniff",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    static func message(for error: HTTPParserError) -> String {
        switch error {
        case .headerOverflow: "the request line or headers are too long"
        case .invalidURL: "the URL is malformed"
        case .invalidChunkSize, .invalidContentLength, .unexpectedContentLength: "the request body's framing is malformed"
        default: "the request is not valid HTTP/1.1"
        }
    }
}
