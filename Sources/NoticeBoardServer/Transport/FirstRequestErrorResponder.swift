import NIOCore
import NIOHTTP1

/// Answers a first request the HTTP decoder cannot parse with the contract's JSON error. Where
/// WebSocket upgrades are possible the HTTP handlers (`MalformedRequestResponder` among them) are
/// added only once a first head has been parsed, so a first head over the limits would otherwise
/// be dropped without an answer. It steps aside when that first head arrives.
final class FirstRequestErrorResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart

    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        if case .head = unwrapInboundIn(data) {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        let response = RawHTTPResponse.closing(APIError.invalid(MalformedRequestResponder.message(for: parserError)))
        let channel = context.channel
        // Written below the HTTP encoder, which has no response to frame yet.
        guard let gate = try? context.pipeline.syncOperations.context(handlerType: ConnectionGate.self) else {
            return channel.close(promise: nil)
        }
        gate.writeAndFlush(NIOAny(IOData.byteBuffer(response))).whenComplete { _ in channel.close(promise: nil) }
    }
}
