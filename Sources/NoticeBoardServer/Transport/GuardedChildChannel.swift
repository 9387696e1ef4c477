import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// A connection set up by `Base` (HTTP/1 with WebSocket upgrades) behind a `ConnectionGate`, with
/// `FirstRequestErrorResponder` in front of the upgrade decision.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let limits: ConnectionLimits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ConnectionGate(limits: limits))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            if let decoder = try? operations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) {
                try operations.addHandler(FirstRequestErrorResponder(), position: .after(decoder.handler))
            }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: UpgradeNoiseFilter.filtering(logger))
    }
}
