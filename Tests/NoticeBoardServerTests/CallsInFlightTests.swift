import NoticeBoardCore
import Testing

@testable import NoticeBoardServer

/// The sender's slots: a host's bound, lowered for a while after a slow answer; deliveries for a
/// busy host wait and take over its slots in order; those waiting too long are handed back; a
/// host that answers promptly may have more waiting than one that does not.
@Suite struct CallsInFlightTests {
    static func delivery(_ sequence: Int64) -> ClaimedDelivery {
        ClaimedDelivery(
            sequence: sequence, deliveryId: "d\(sequence)", event: .created, postId: 1, target: .webhook(1), body: [], attempts: 1,
            createdAt: 0, url: "https://a.example/hook", secret: nil, p256dh: nil, auth: nil, postIsLive: true)
    }

    @Test func aSlowHostGetsFewerSlotsForAWhile() {
        var calls = OutboxSender.CallsInFlight()
        let now = ContinuousClock.now
        var entered = 0
        for _ in 0..<OutboxSender.maxPerHost where calls.enter("a") { entered += 1 }
        #expect(entered == OutboxSender.maxPerHost)
        let (overBound, otherHost) = (calls.enter("a"), calls.enter("b"))
        #expect(!overBound && otherHost, "a host at its bound; another host is not held up")
        calls.took(.seconds(3), host: "a", now: now)
        #expect(calls.bound(of: "a", now: now + .seconds(1)) == OutboxSender.maxPerSlowHost)
        #expect(calls.bound(of: "b", now: now) == OutboxSender.maxPerHost)
        #expect(calls.bound(of: "a", now: now + OutboxSender.slowMemory + .seconds(1)) == OutboxSender.maxPerHost, "slow only for a while")
    }

    @Test func waitingDeliveriesTakeOverTheirHostsSlotsInOrder() {
        var calls = OutboxSender.CallsInFlight()
        for _ in 0..<OutboxSender.maxPerHost { _ = calls.enter("a") }
        var kept = 0
        for sequence in Int64(1)...3 where calls.wait(Self.delivery(sequence), for: "a") { kept += 1 }
        let noneFree = calls.startable()
        #expect(kept == 3 && calls.waitingCount == 3 && noneFree.isEmpty, "no slot of a's is free")
        let (first, second) = (calls.next(for: "a")?.sequence, calls.next(for: "a")?.sequence)
        #expect(first == 1 && second == 2)
        let atShutdown = calls.next(for: "a", passing: false)
        #expect(atShutdown == nil && calls.byHost["a"] == OutboxSender.maxPerHost - 1, "at shutdown the slot is left")
        let started = calls.startable().map(\.delivery.sequence)
        #expect(started == [3], "a free slot of a's starts what waits")
        #expect(calls.waitingCount == 0 && calls.byHost["a"] == OutboxSender.maxPerHost)
        // Waiting past `maxWait`: handed back.
        let waits = calls.wait(Self.delivery(4), for: "a")
        let stale = calls.takeStale(now: .now + OutboxSender.maxWait + .seconds(1)).map(\.sequence)
        #expect(waits && stale == [4])
        #expect(calls.waitingCount == 0 && calls.waiting.isEmpty)
        // Leaving every slot brings the count back to nothing.
        for _ in 0..<OutboxSender.maxPerHost { _ = calls.next(for: "a") }
        #expect(calls.total == 0 && calls.byHost.isEmpty)
    }

    @Test func aHostThatAnswersPromptlyMayHaveMoreWaiting() {
        var calls = OutboxSender.CallsInFlight()
        let now = ContinuousClock.now
        var kept = 0
        for sequence in Int64(1)...300 where calls.wait(Self.delivery(sequence), for: "quiet", now: now) { kept += 1 }
        #expect(kept == OutboxSender.maxWaitingPerHost, "a host not heard from keeps its small share")
        calls.took(.milliseconds(5), host: "answering", now: now)
        kept = 0
        for sequence in Int64(301)...600 where calls.wait(Self.delivery(sequence), for: "answering", now: now) { kept += 1 }
        #expect(kept == OutboxSender.maxWaitingPerAnsweringHost)
        #expect(calls.share(of: "answering", now: now + OutboxSender.answerMemory + .milliseconds(1)) == OutboxSender.maxWaitingPerHost,
                "only while it answers")
        calls.took(.seconds(3), host: "answering", now: now)
        #expect(calls.share(of: "answering", now: now) == OutboxSender.maxWaitingPerHost, "a slow answer ends the larger share")
        #expect(OutboxSender.maxWaitingPerAnsweringHost <= OutboxSender.maxWaiting / 2,
                "a host that stops answering still leaves room to the others")
    }
}
