import Foundation
import NoticeBoardCore
import Testing

@Suite(.timeLimit(.minutes(5))) struct LiveFeedTests {
    static func post(_ id: Int64) -> LiveEvent {
        .post(Post(id: id, lat: 1, lon: 2, heading: nil, message: "m", tag: "t", createdAt: 0, accuracy: nil, floor: nil, beacon: nil))
    }

    @Test func sequencesIncreaseAndStartAboveTheClock() {
        let feed = LiveFeed(now: Date(timeIntervalSince1970: 1_800_000_000))
        let subscription = feed.subscribe(after: nil)
        feed.publish(Self.post(1))
        feed.publish(Self.post(2))
        feed.unsubscribe(subscription.token)
        let sequences = feed.subscribe(after: 0).backlog.map(\.sequence)
        #expect(sequences.count == 2 && sequences[0] < sequences[1])
        #expect(sequences[0] > 1_800_000_000 * 1_000_000)
    }

    @Test func aResumingSubscriberGetsExactlyWhatItMissed() async {
        let feed = LiveFeed(retained: 3)
        for id in 1...5 { feed.publish(Self.post(Int64(id))) }
        let all = feed.subscribe(after: 0).backlog
        #expect(all.map(\.event) == [Self.post(3), Self.post(4), Self.post(5)], "only the last 3 are retained")
        let resumed = feed.subscribe(after: all[0].sequence)
        #expect(resumed.backlog.map(\.event) == [Self.post(4), Self.post(5)])
        #expect(feed.subscribe(after: nil).backlog.isEmpty)
        feed.publish(Self.post(6))
        var iterator = resumed.events.makeAsyncIterator()
        #expect(await iterator.next()?.event == Self.post(6))
    }

    @Test func aSubscriberThatFallsBehindIsDroppedNotBuffered() async {
        let feed = LiveFeed(bufferPerSubscriber: 4)
        let slow = feed.subscribe(after: nil)
        #expect(feed.subscriberCount == 1)
        for id in 1...10 { feed.publish(Self.post(Int64(id))) }
        #expect(feed.subscriberCount == 0)
        var received: [LiveEvent] = []
        for await event in slow.events { received.append(event.event) }
        #expect(received == (1...4).map { Self.post(Int64($0)) }, "its buffer is delivered, then the stream ends")
    }
}
