import Foundation
import Synchronization

/// A change that live streams deliver.
public enum LiveEvent: Sendable, Equatable {
    /// A new post, or a hidden post restored.
    case post(Post)
    /// A post hidden, deleted or expired; its position decides which streams hear of it.
    case remove(id: Int64, lat: Double, lon: Double)
    /// A new reply (or a hidden one restored), heard by the streams its post matches.
    case reply(Reply, post: Post)
    /// A reply hidden or deleted; the post carries its reply count after.
    case replyRemoved(id: Int64, post: Post)
}

extension LiveEvent {
    var position: (lat: Double, lon: Double) {
        switch self {
        case .post(let post): (post.lat, post.lon)
        case .remove(_, let lat, let lon): (lat, lon)
        case .reply(_, let post), .replyRemoved(_, let post): (post.lat, post.lon)
        }
    }
}

public struct SequencedEvent: Sendable, Equatable {
    /// Increasing, and seeded from the clock so it keeps increasing across restarts: a client's
    /// `Last-Event-ID` from before a restart never hides newer events.
    public var sequence: Int64
    public var event: LiveEvent
}

/// Fans changes out to live streams. Keeps the most recent events so a client reconnecting
/// with `Last-Event-ID` gets what it missed; each subscriber has a bounded buffer, and a
/// subscriber that falls that far behind is dropped (it may reconnect and resume).
public final class LiveFeed: Sendable {
    public struct Subscription: Sendable {
        public let token: Int
        /// Events after the requested sequence still held by the feed, oldest first.
        public let backlog: [SequencedEvent]
        /// Whether the backlog holds every event after the requested sequence: false when the
        /// feed has forgotten some of them (it keeps `retained`) or started after it (a restart).
        public let backlogIsComplete: Bool
        /// The newest sequence published before this subscription: where a client that starts
        /// over resumes.
        public let latestSequence: Int64
        public let events: AsyncStream<SequencedEvent>
    }

    struct State {
        let retained: Int
        var lastSequence: Int64
        var recent: [SequencedEvent] = []
        /// Every event at or below this sequence is forgotten (or came before the feed started).
        var forgottenThrough: Int64
        var subscribers: [Int: AsyncStream<SequencedEvent>.Continuation] = [:]
        /// Which subscribers listen in each cell, and which listen everywhere.
        var byCell: [StreamCells.Cell: Set<Int>] = [:]
        var cellsOf: [Int: Set<StreamCells.Cell>] = [:]
        var everywhere: Set<Int> = []
        var nextToken = 0

        /// The newest `retained` events after `sequence`; events are in sequence order.
        func retainedEvents(after sequence: Int64) -> ArraySlice<SequencedEvent> {
            let kept = recent.suffix(retained)
            var low = kept.startIndex, high = kept.endIndex
            while low < high {
                let middle = (low + high) / 2
                if kept[middle].sequence > sequence { high = middle } else { low = middle + 1 }
            }
            return kept[low...]
        }

        /// Whether every event after `sequence` is still retained.
        func retainsEverything(after sequence: Int64) -> Bool {
            let keptStart = recent.suffix(retained).startIndex
            let horizon = keptStart > recent.startIndex ? recent[keptStart - 1].sequence : forgottenThrough
            return sequence >= horizon
        }

        mutating func remove(_ token: Int) -> AsyncStream<SequencedEvent>.Continuation? {
            everywhere.remove(token)
            for cell in cellsOf.removeValue(forKey: token) ?? [] {
                byCell[cell]?.remove(token)
                if byCell[cell]?.isEmpty == true { byCell[cell] = nil }
            }
            return subscribers.removeValue(forKey: token)
        }
    }

    public let retained: Int
    public let bufferPerSubscriber: Int
    private let state: Mutex<State>

    public init(retained: Int = 10_000, bufferPerSubscriber: Int = 1000, now: Date = Date()) {
        self.retained = retained
        self.bufferPerSubscriber = bufferPerSubscriber
        let start = Int64(now.timeIntervalSince1970 * 1_000_000)
        state = Mutex(State(retained: retained, lastSequence: start, forgottenThrough: start))
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    public func publish(_ event: LiveEvent) {
        state.withLock { state in
            state.lastSequence = max(state.lastSequence + 1, Int64(Date().timeIntervalSince1970 * 1_000_000))
            let sequenced = SequencedEvent(sequence: state.lastSequence, event: event)
            state.recent.append(sequenced)
            // Trimmed in batches, so a full history costs no shift of every event per publish.
            if state.recent.count >= 2 * retained {
                state.forgottenThrough = state.recent[state.recent.count - retained - 1].sequence
                state.recent.removeFirst(state.recent.count - retained)
            }
            // Only the streams whose cells hold the position, and those listening everywhere.
            let (lat, lon) = event.position
            var dropped: [Int] = []
            for token in state.everywhere.union(state.byCell[StreamCells.cell(lat: lat, lon: lon)] ?? []) {
                guard let continuation = state.subscribers[token] else { continue }
                if case .dropped = continuation.yield(sequenced) { dropped.append(token) }
            }
            for token in dropped { state.remove(token)?.finish() }
        }
    }

    /// Subscribes to events in `cells` (nil: everywhere); with `after`, the backlog holds the
    /// retained events after that sequence.
    public func subscribe(after: Int64?, cells: Set<StreamCells.Cell>? = nil) -> Subscription {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SequencedEvent.self, bufferingPolicy: .bufferingOldest(bufferPerSubscriber))
        return state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.subscribers[token] = continuation
            if let cells {
                state.cellsOf[token] = cells
                for cell in cells { state.byCell[cell, default: []].insert(token) }
            } else {
                state.everywhere.insert(token)
            }
            let backlog = after.map { sequence in Array(state.retainedEvents(after: sequence)) } ?? []
            let complete = after.map { state.retainsEverything(after: $0) } ?? true
            return Subscription(token: token, backlog: backlog, backlogIsComplete: complete, latestSequence: state.lastSequence, events: stream)
        }
    }

    /// Moves a subscriber to other cells (nil: everywhere), as a walker moves.
    public func listen(_ token: Int, in cells: Set<StreamCells.Cell>?) {
        state.withLock { state in
            guard state.subscribers[token] != nil else { return }
            if let held = state.cellsOf[token], held == cells { return }
            state.everywhere.remove(token)
            for cell in state.cellsOf.removeValue(forKey: token) ?? [] {
                state.byCell[cell]?.remove(token)
                if state.byCell[cell]?.isEmpty == true { state.byCell[cell] = nil }
            }
            if let cells {
                state.cellsOf[token] = cells
                for cell in cells { state.byCell[cell, default: []].insert(token) }
            } else {
                state.everywhere.insert(token)
            }
        }
    }

    public func unsubscribe(_ token: Int) {
        state.withLock { $0.remove(token) }?.finish()
    }
}
