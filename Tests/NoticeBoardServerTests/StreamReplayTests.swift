import Foundation
import Hummingbird
import NoticeBoardCore
import Testing

@testable import NoticeBoardServer

/// A stream resumed with `Last-Event-ID` (contract 1.2, "Bounds"): what it missed in its area
/// when that is at most 1000 events and 1 MiB, else `event: reset`; also when the feed no
/// longer holds everything after the id (forgotten, or from before a restart).
@Suite struct StreamReplayTests {
    static func post(_ id: Int64, lat: Double = 22.4, message: String = "m") -> Post {
        Post(id: id, lat: lat, lon: 114.2, heading: nil, message: message, tag: "t", createdAt: 1_000, accuracy: nil, floor: nil, beacon: nil)
    }

    static let around = try! StreamQuery(QueryParameters([("lat", "22.4"), ("lon", "114.2"), ("radius", "5000")]))

    /// The replayed chunks as text.
    static func replayed(_ subscription: LiveFeed.Subscription) -> [String] {
        StreamReplay.chunks(of: subscription, for: around).map { String(buffer: $0) }
    }

    @Test func whatWasMissedInTheAreaIsReplayedInOrder() {
        let feed = LiveFeed()
        feed.publish(.post(Self.post(1)))
        let from = feed.subscribe(after: 0).backlog.last!.sequence
        for id in 2...6 { feed.publish(.post(Self.post(Int64(id)))) }
        // Far away: not this stream's, and not counted against its bound.
        for id in 100..<2100 { feed.publish(.post(Self.post(Int64(id), lat: -40))) }
        let chunks = Self.replayed(feed.subscribe(after: from))
        #expect(chunks.count == 5 && chunks.allSatisfy { $0.contains("event: post") })
        #expect(chunks.map { $0.contains("\"id\":\(2)") } == [true, false, false, false, false])
    }

    @Test func moreThanAThousandMissedIsAReset() {
        let feed = LiveFeed()
        feed.publish(.post(Self.post(1)))
        let from = feed.subscribe(after: 0).backlog.last!.sequence
        for id in 2...1001 { feed.publish(.post(Self.post(Int64(id)))) }
        #expect(Self.replayed(feed.subscribe(after: from)).count == 1000, "exactly the bound is replayed")
        feed.publish(.post(Self.post(1002)))
        let chunks = Self.replayed(feed.subscribe(after: from))
        #expect(chunks.count == 1 && chunks[0].contains("event: reset\ndata:\n\n"))
        // The reset carries the newest id, so the client resumes from now.
        let latest = feed.subscribe(after: 0).latestSequence
        #expect(chunks[0].hasPrefix("id: \(latest)\n"))
    }

    @Test func moreThanAMebibyteMissedIsAReset() {
        let feed = LiveFeed()
        feed.publish(.post(Self.post(1)))
        let from = feed.subscribe(after: 0).backlog.last!.sequence
        let long = String(repeating: "x", count: 4000)
        for id in 2...300 { feed.publish(.post(Self.post(Int64(id), message: long))) }
        let chunks = Self.replayed(feed.subscribe(after: from))
        #expect(chunks.count == 1 && chunks[0].contains("event: reset"), "\(chunks.count) chunks, \(chunks.map(\.utf8.count).reduce(0, +)) bytes")
        for id in 301...500 { feed.publish(.post(Self.post(Int64(id), message: "short"))) }
        let fromShort = feed.subscribe(after: 0).backlog[299].sequence
        let bytes = Self.replayed(feed.subscribe(after: fromShort)).map(\.utf8.count).reduce(0, +)
        #expect(bytes > 0 && bytes <= StreamReplay.maxBytes)
    }

    @Test func anIdTheFeedNoLongerCoversIsAReset() {
        let feed = LiveFeed(retained: 100)
        for id in 1...10 { feed.publish(.post(Self.post(Int64(id)))) }
        // From before the feed started (a restart, or `Last-Event-ID: 0`): a reset, not a replay.
        let fromZero = Self.replayed(feed.subscribe(after: 0))
        #expect(fromZero.count == 1 && fromZero[0].contains("event: reset"))
        let first = feed.subscribe(after: 0).backlog.first!.sequence
        #expect(Self.replayed(feed.subscribe(after: first)).count == 9)
        // Once the feed has forgotten events after the id, a reset too.
        for id in 11...400 { feed.publish(.post(Self.post(Int64(id), lat: -40))) }
        let forgotten = Self.replayed(feed.subscribe(after: first))
        #expect(forgotten.count == 1 && forgotten[0].contains("event: reset"))
    }
}
