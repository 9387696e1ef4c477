import Foundation
import Logging
import NoticeBoardCore
import Synchronization

/// What the outbox routes and services share: the store, the host policy and the deployment's
/// VAPID key, read from the store once.
final class OutboxServices: Sendable {
    let store: any OutboxStore
    let board: Board
    let policy: HostPolicy
    let vapidSubject: String
    private let vapidKey = Mutex<VAPID?>(nil)
    private let vapidTokens = Mutex(VAPIDTokenCache())

    init(store: any OutboxStore, board: Board, policy: HostPolicy, vapidSubject: String) {
        self.store = store
        self.board = board
        self.policy = policy
        self.vapidSubject = vapidSubject
    }

    func vapid() async throws -> VAPID {
        if let vapid = vapidKey.withLock({ $0 }) { return vapid }
        let loaded = try await VAPID.load(from: store, subject: vapidSubject)
        vapidKey.withLock { $0 = loaded }
        return loaded
    }

    /// `Authorization` for a push to `audience`, signed once for most of a token's life.
    func vapidAuthorization(audience: String, now: Int = Int(Date().timeIntervalSince1970)) async throws -> String {
        if let cached = vapidTokens.withLock({ $0.header(for: audience, now: now) }) { return cached }
        let vapid = try await vapid()
        return try vapidTokens.withLock { try $0.sign(for: audience, now: now, with: vapid) }
    }
}
