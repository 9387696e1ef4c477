import Foundation
import Hummingbird
import HummingbirdWebSocket
import Metrics
import NoticeBoardCore
import Synchronization

/// `GET /api/v1/walk`: a WebSocket on which a walker sends its position and hears the notes that
/// come into view (`enter`, with distance and bearing) and go out of it (`leave`), new notes made
/// in view included; at most the 200 nearest at a time.
struct WalkRoutes: Sendable {
    static let path = "/api/v1/walk"
    /// Updates a walker may send a second; more are dropped.
    static let updatesPerSecond = 10
    static let maxMessageBytes = 16 * 1024

    let board: Board
    let identity: ClientIdentity
    let openWalks: StreamCounter

    /// On the plain router: a request that does not ask for the upgrade is told how to.
    func register(on routes: Routes<some RouterMethods<AppRequestContext>>) {
        routes.on(.get, Self.path) { _, _ in
            throw APIError.invalid("this endpoint is a WebSocket: send Connection: Upgrade and Upgrade: websocket")
        }
    }

    func register(webSockets router: Router<WalkRequestContext>) {
        router.ws(RouterPath(Self.path)) { request, context in
            try board.requireLoaded()
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let client = identity.address(peer: context.requestContext.remoteAddress, forwardedFor: context.request.headers[ClientIdentity.forwardedForHeader])
            guard let ticket = openWalks.open(for: client) else {
                try await outbound.close(.policyViolation, reason: "too many walks from one address")
                return
            }
            defer { ticket.close() }
            Self.openGauge.record(Self.open.wrappingAdd(1, ordering: .relaxed).newValue)
            defer { Self.openGauge.record(Self.open.wrappingAdd(-1, ordering: .relaxed).newValue) }
            try await walk(inbound: inbound, outbound: outbound)
        }
    }

    private enum Input: Sendable {
        case update(WalkUpdate)
        case invalid(ValidationError)
        case change(LiveEvent)
        /// The socket broke (a bad frame, a reset): the walk ends with the error's close code.
        case broken(any Error)
    }

    private func walk(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        // A walker hears only changes near where it stands: no cells until its first position.
        let subscription = board.feed.subscribe(after: nil, cells: [])
        defer { board.feed.unsubscribe(subscription.token) }
        // Updates, refusals and the board's changes, handled one at a time by this task.
        let (inputs, input) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .bufferingNewest(256))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // Whatever ends the reading ends the walk: a bad frame or a reset must not leave
                // the walk, its subscription and its address's slot waiting for ever.
                defer { input.finish() }
                do {
                    try await readUpdates(from: inbound, into: input)
                } catch {
                    input.yield(.broken(error))
                }
            }
            group.addTask {
                for await event in subscription.events { input.yield(.change(event.event)) }
                input.finish()
            }
            var session = WalkSession()
            var broken: (any Error)?
            loop: for await item in inputs {
                switch item {
                case .update(let update):
                    board.feed.listen(subscription.token, in: StreamCells.cells(for: .circle(lat: update.lat, lon: update.lon, radius: update.radius)))
                    try await send(session.show(board.walkView(update), at: update), on: outbound)
                case .invalid(let error):
                    try await outbound.writeTextMessage(Self.errorMessage(error))
                case .broken(let error):
                    broken = error
                    break loop
                case .change(let event):
                    guard let position = session.position else { continue }
                    let concerns: Bool
                    switch event {
                    case .post(let post): concerns = session.mayConcern(lat: post.lat, lon: post.lon, id: post.id)
                    case .remove(let id, let lat, let lon): concerns = session.mayConcern(lat: lat, lon: lon, id: id)
                    case .reply, .replyRemoved: concerns = false
                    }
                    if concerns { try await send(session.show(board.walkView(position), at: position), on: outbound) }
                }
            }
            group.cancelAll()
            // Rethrown, the handler closes the socket with the code the error carries (1009 for
            // a message too large, 1002 for a protocol error, 1007 for bad UTF-8).
            if let broken { throw broken }
        }
    }

    /// Reads the walker's messages into `input` until the socket ends.
    private func readUpdates(from inbound: WebSocketInboundStream, into input: AsyncStream<Input>.Continuation) async throws {
        var accepted: [ContinuousClock.Instant] = []
        for try await message in inbound.messages(maxSize: Self.maxMessageBytes) {
            let now = ContinuousClock.now
            accepted.removeAll { now - $0 >= .seconds(1) }
            guard accepted.count < Self.updatesPerSecond else {
                Counter(label: "noticeboard_walk_updates_dropped_total").increment()
                continue
            }
            accepted.append(now)
            guard case .text(let text) = message else {
                input.yield(.invalid(ValidationError(field: nil, "updates are JSON text messages")))
                continue
            }
            do {
                input.yield(.update(try WalkUpdate(json: try JSONValue.parseStrict(Data(text.utf8)))))
            } catch let error as ValidationError {
                input.yield(.invalid(error))
            } catch let error as JSONParseError {
                input.yield(.invalid(ValidationError(field: error.field, error.message)))
            } catch {
                input.yield(.invalid(ValidationError(field: nil, "the update is not valid JSON")))
            }
        }
    }

    private func send(_ messages: [WalkMessage], on outbound: WebSocketOutboundWriter) async throws {
        for message in messages {
            switch message {
            case .enter(let found):
                let post = JSONResponse.encode(PostJSON(post: found.post, distance: found.distance, bearing: found.bearing))
                try await outbound.writeTextMessage(#"{"type":"enter","post":"# + post + "}")
            case .leave(let id):
                try await outbound.writeTextMessage(#"{"type":"leave","id":\#(id)}"#)
            }
        }
    }

    static func errorMessage(_ error: ValidationError) -> String {
        let apiError = APIError(error)
        var detail: [String: String] = ["code": apiError.code, "message": apiError.message]
        if let field = apiError.field { detail["field"] = field }
        let body = String(decoding: JSONResponse.encodeData(detail), as: UTF8.self)
        return #"{"type":"error","error":"# + body + "}"
    }

    static let open = Atomic<Int>(0)
    static let openGauge = Gauge(label: "noticeboard_walks_open")
}
