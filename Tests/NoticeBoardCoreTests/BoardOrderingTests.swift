import BoardTestSupport
import CoreTestSupport
import Foundation
import NoticeBoardCore
import Testing

/// The board applies each post's committed states in version order, whatever order they
/// arrive in: results of this instance's transactions race the change feed's reads.
@Suite(.timeLimit(.minutes(5))) struct BoardOrderingTests {

    static func post(_ id: Int64) -> Post {
        Post(id: id, lat: 22.4, lon: 114.2, heading: nil, message: "m\(id)", tag: "t", createdAt: 1_000, accuracy: nil, floor: nil, beacon: nil)
    }

    @Test func aRestoredNoteWhoseLifetimeEndedIsNotAnnounced() async {
        let board = Board(store: UnreachablePostStore())
        let now = Timestamp.nowMilliseconds()
        var ended = Self.post(1)
        ended.expiresAt = now - 1000
        var lasting = Self.post(2)
        lasting.expiresAt = now + 3_600_000
        board.reconcile(ended, status: .hidden, version: 2)
        board.reconcile(lasting, status: .hidden, version: 2)
        let subscription = board.feed.subscribe(after: nil)
        board.reconcile(ended, status: .visible, version: 3)
        board.reconcile(lasting, status: .visible, version: 3)
        board.feed.unsubscribe(subscription.token)
        var announced: [Int64] = []
        for await event in subscription.events { if case .post(let post) = event.event { announced.append(post.id) } }
        #expect(announced == [2], "only the note still on the board is announced")
        #expect(board.post(id: 1) != nil, "the ended note is back in the history")
    }

    @Test func anOlderStateNeverOverwritesANewerOne() {
        let board = Board(store: UnreachablePostStore())
        board.reconcile(Self.post(1), status: .visible, version: 1)
        board.reconcile(Self.post(1), status: .visible, version: 3)
        board.reconcile(Self.post(1), status: .hidden, version: 2)
        #expect(board.post(id: 1) != nil, "hidden at version 2 arrived after visible at version 3")
        board.reconcile(Self.post(1), status: .hidden, version: 4)
        board.reconcile(Self.post(1), status: .visible, version: 3)
        board.reconcile(Self.post(1), status: .visible, version: 1)
        #expect(board.post(id: 1) == nil, "restored at version 3 arrived after hidden at version 4")
        #expect(board.version(of: 1) == 4)
        #expect(board.postCount == 0)
    }

    @Test func statesInAnyOrderEndAtTheNewest() {
        let seed = SeededGenerator.runSeed()
        print("BoardOrderingTests seed \(seed)")
        var random = SeededGenerator(seed: seed)
        let board = Board(store: UnreachablePostStore())
        let subscription = board.feed.subscribe(after: nil)
        var newest: [Int64: (version: Int64, status: PostStatus)] = [:]
        var arrivals: [(id: Int64, version: Int64, status: PostStatus)] = []
        for id in Int64(1)...200 {
            // Version 1 is the insert (visible); each later version a hide, restore or delete.
            var status = PostStatus.visible
            var states = [(id, Int64(1), status)]
            for version in Int64(2)...Int64.random(in: 2...8, using: &random) where status != .deleted {
                status = [.visible, .hidden, .deleted].randomElement(using: &random)!
                states.append((id, version, status))
            }
            newest[id] = (states.last!.1, states.last!.2)
            // Each state may arrive twice: from the local transaction and from the change feed.
            arrivals += states.map { (id: $0.0, version: $0.1, status: $0.2) }
            arrivals += states.filter { _ in Bool.random(using: &random) }.map { (id: $0.0, version: $0.1, status: $0.2) }
        }
        arrivals.shuffle(using: &random)
        for arrival in arrivals {
            board.reconcile(Self.post(arrival.id), status: arrival.status, version: arrival.version)
        }
        for (id, state) in newest {
            #expect((board.post(id: id) != nil) == (state.status == .visible), "post \(id), seed \(seed)")
            #expect(board.version(of: id) == state.version, "post \(id), seed \(seed)")
        }
        #expect(board.postCount == newest.values.filter { $0.status == .visible }.count)
        // The events alternate per post, starting with its first appearance: never two adds or two removes.
        var shown: [Int64: Bool] = [:]
        board.feed.unsubscribe(subscription.token)
        for event in board.feed.subscribe(after: 0).backlog {
            switch event.event {
            case .post(let post):
                #expect(shown[post.id] != true, "post \(post.id) added twice in a row, seed \(seed)")
                shown[post.id] = true
            case .remove(let id, _, _):
                #expect(shown[id] == true, "post \(id) removed while not shown, seed \(seed)")
                shown[id] = false
            case .reply(let reply, _):
                Issue.record("reply \(reply.id) published where none was made, seed \(seed)")
            case .replyRemoved(let id, _):
                Issue.record("reply \(id) removed where none was made, seed \(seed)")
            }
        }
        for (id, state) in newest { #expect((shown[id] ?? false) == (state.status == .visible), "post \(id), seed \(seed)") }
    }

    @Test func concurrentAppliersAgreeWithTheNewestVersion() async {
        let board = Board(store: UnreachablePostStore())
        let rounds = 300
        await withTaskGroup(of: Void.self) { group in
            for id in Int64(1)...Int64(rounds) {
                // A hide (version 2) and a restore (version 3) racing, and the feed replaying both.
                group.addTask { board.reconcile(Self.post(id), status: .visible, version: 1) }
                group.addTask { board.reconcile(Self.post(id), status: .hidden, version: 2) }
                group.addTask { board.reconcile(Self.post(id), status: .visible, version: 3) }
                group.addTask { board.reconcile(Self.post(id), status: .hidden, version: 2) }
            }
        }
        for id in Int64(1)...Int64(rounds) {
            #expect(board.post(id: id) != nil && board.version(of: id) == 3, "post \(id)")
        }
    }
}
