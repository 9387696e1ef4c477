import Hummingbird
import NoticeBoardCore

/// What a stream resumed with `Last-Event-ID` is sent first (contract 1.2, "Bounds"): the
/// events it missed in its area when they are at most `maxEvents` and `maxBytes`, else one
/// `event: reset` telling it to reload its view, so an 85-byte request cannot ask for megabytes.
enum StreamReplay {
    static let maxEvents = 1000
    static let maxBytes = 1 << 20

    static func chunks(of subscription: LiveFeed.Subscription, for query: StreamQuery) -> [ByteBuffer] {
        var chunks: [ByteBuffer] = []
        var bytes = 0
        let reset = [ByteBuffer(string: "id: \(subscription.latestSequence)\nevent: reset\ndata:\n\n")]
        guard subscription.backlogIsComplete else { return reset }
        for event in subscription.backlog {
            guard let chunk = StreamRoutes.encode(event, for: query) else { continue }
            bytes += chunk.readableBytes
            guard chunks.count < maxEvents, bytes <= maxBytes else { return reset }
            chunks.append(chunk)
        }
        return chunks
    }
}
