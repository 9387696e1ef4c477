import Foundation
import HTTPTypes
import Metrics
import Hummingbird
import NoticeBoardCore
import ServiceLifecycle
import Synchronization

/// `GET /api/v1/posts/stream`: Server-Sent Events of new and removed posts in an area.
struct StreamRoutes: Sendable {
    static let lastEventIDHeader = HTTPField.Name("Last-Event-ID")!

    let board: Board
    let identity: ClientIdentity
    let openStreams: StreamCounter
    /// A comment this often keeps proxies from closing an idle stream, and is how a gone client
    /// is noticed (the write fails), which frees its place in `openStreams`.
    let keepAliveInterval: Duration

    static let path = "/api/v1/posts/stream"
    /// Chunks a stream may have waiting for a slow client before it is dropped: as many as the
    /// feed holds for any subscriber (`LiveFeed.bufferPerSubscriber`).
    static let queuedChunks = 1000

    func register(on routes: Routes<some RouterMethods<AppRequestContext>>) {
        routes.on(.get, Self.path, head: false, use: stream)
    }

    @Sendable func stream(_ request: Request, context: AppRequestContext) async throws -> Response {
        var parsed = try StreamQuery(QueryParameters(urlQuery: request.uri.query))
        if parsed.place != nil { try board.requireLoaded() }
        parsed.resolvedPlace = try board.streamPlace(parsed.place)
        let query = parsed
        let lastEventID = request.headers[Self.lastEventIDHeader].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        let feed = board.feed
        let client = identity.address(of: request, context: context)
        // Each client may hold a few streams (tabs, a phone and a laptop behind one NAT), not thousands.
        guard let ticket = openStreams.open(for: client) else { throw APIError.rateLimited(retryAfterSeconds: 10) }
        let headers: HTTPFields = [
            .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache",
            HTTPField.Name("X-Accel-Buffering")!: "no",
        ]
        let connectionClosed = context.connectionClosed
        let board = self.board
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            defer { ticket.close() }
            let subscription = feed.subscribe(after: lastEventID, cells: query.cells)
            defer { feed.unsubscribe(subscription.token) }
            // One bounded queue of chunks (events and keep-alive comments), written in order by
            // this task. A client that does not read fills it and is dropped: it may reconnect
            // with Last-Event-ID and resume from the feed's history.
            let (chunks, output) = AsyncStream.makeStream(of: ByteBuffer.self, bufferingPolicy: .bufferingOldest(Self.queuedChunks))
            let send: @Sendable (ByteBuffer) -> Void = { chunk in
                if case .dropped = output.yield(chunk) {
                    Counter(label: "noticeboard_streams_dropped_total").increment()
                    output.finish()
                }
            }
            // A client that leaves frees its place at once, not at the next keep-alive.
            connectionClosed.whenComplete { _ in output.finish() }
            // What it missed is written straight away (it is already held, in the feed's history),
            // so a resuming client is never dropped for the size of its backlog.
            try await writer.write(ByteBuffer(string: "retry: 3000\n: connected\n\n"))
            for chunk in StreamReplay.chunks(of: subscription, for: query) { try await writer.write(chunk) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var placeRevision = board.placeRevision
                    for await event in subscription.events {
                        // A place redrawn or deleted ends its streams: the client reconnects with
                        // Last-Event-ID and follows the new outline (or learns the place is gone).
                        if let held = query.resolvedPlace, board.placeRevision != placeRevision {
                            placeRevision = board.placeRevision
                            guard let current = board.place(slug: held.slug), current.shape.hasSameOutline(as: held.shape), current.floors == held.floors else { break }
                        }
                        if let chunk = Self.encode(event, for: query) { send(chunk) }
                    }
                    // The feed dropped this subscriber (too far behind): end the stream.
                    output.finish()
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: keepAliveInterval)
                        send(ByteBuffer(staticString: ": keep-alive\n\n"))
                    }
                }
                // Ends when the queue is finished (dropped, feed gone, connection closed) or the
                // server shuts down; a failed write throws, which cancels both helpers.
                for await chunk in chunks.cancelOnGracefulShutdown() {
                    try await writer.write(chunk)
                }
                group.cancelAll()
            }
            try await writer.finish(nil)
        })
    }

    /// The event as SSE bytes, or `nil` when it is outside the stream's area or tags: written
    /// straight into one buffer, a post's JSON by the same writer as a page's.
    static func encode(_ sequenced: SequencedEvent, for query: StreamQuery) -> ByteBuffer? {
        var json = JSONWriter(capacity: 1024)
        json.raw("id: ")
        json.number(sequenced.sequence)
        switch sequenced.event {
        case .post(let post):
            guard let place = query.matches(lat: post.lat, lon: post.lon, tag: post.tag, floor: .some(post.floor)) else { return nil }
            json.raw("\nevent: post\ndata: ")
            PostJSON(post: post, distance: place?.distance, bearing: place?.bearing).writeObject(to: &json)
        case .remove(let id, let lat, let lon):
            guard query.matches(lat: lat, lon: lon, tag: nil) != nil else { return nil }
            json.raw("\nevent: remove\ndata: {\"id\":")
            json.number(id)
            json.raw("}")
        case .reply(let reply, let post):
            guard query.matches(lat: post.lat, lon: post.lon, tag: post.tag, floor: .some(post.floor)) != nil else { return nil }
            json.raw("\nevent: reply\ndata: ")
            var replyJSON = ReplyJSON(reply)
            replyJSON.replyCount = post.replyCount
            json.text(JSONResponse.encode(replyJSON))
        case .replyRemoved(let id, let post):
            guard query.matches(lat: post.lat, lon: post.lon, tag: post.tag, floor: .some(post.floor)) != nil else { return nil }
            json.raw("\nevent: reply-remove\ndata: {\"id\":")
            json.number(id)
            json.raw(",\"postId\":")
            json.number(post.id)
            json.raw(",\"replyCount\":")
            json.number(post.replyCount)
            json.raw("}")
        }
        json.raw("\n\n")
        return ByteBuffer(bytes: json.written)
    }
}
