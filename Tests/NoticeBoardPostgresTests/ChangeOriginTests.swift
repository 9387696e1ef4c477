import DatabaseTestSupport
import Foundation
import NoticeBoardCore
import NoticeBoardPostgres
import PostgresNIO
import Synchronization
import Testing

/// Changes record the process that made them: that process reads its own back without the
/// post (it applied them already) unless it asks for them in full, and its own announcements
/// do not wake it, while another process's do.
@Suite(.timeLimit(.minutes(2))) struct ChangeOriginTests {
    static func insert(_ message: String, on connection: PostgresConnection) async throws {
        try await connection.query(
            "INSERT INTO posts (lat, lon, message, tag) VALUES (1, 2, \(message), 'food')", logger: TestDatabase.logger)
    }

    @Test func ownChangesComeWithoutTheirPostUnlessAskedInFull() async throws {
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            try await client.withConnection { connection in
                try await Self.insert("made here", on: connection)
                try await connection.query("BEGIN", logger: TestDatabase.logger)
                try await connection.query("SET LOCAL noticeboard.origin = 'another-process'", logger: TestDatabase.logger)
                try await Self.insert("made elsewhere", on: connection)
                try await connection.query("COMMIT", logger: TestDatabase.logger)
                // A change of no process (before migration 0015, psql, pgbench) is someone else's.
                try await Self.insert("made by psql", on: connection)
                try await connection.query("UPDATE post_changes SET origin = NULL WHERE seq = (SELECT max(seq) FROM post_changes)", logger: TestDatabase.logger)
            }
            let feed = PostgresChangeFeed(client: DatabasePool(client), logger: TestDatabase.logger)
            let entries = try await feed.changes(after: 0, limit: 10, ownInFull: false)
            #expect(entries.count == 3)
            guard entries.count == 3, case .own(_, let ownId, let version) = entries[0], case .change(let other) = entries[1],
                case .change(let nobodys) = entries[2]
            else {
                Issue.record("expected one own change, then two of others: \(entries)")
                return
            }
            #expect(version == 1 && other.post.message == "made elsewhere" && other.post.id != ownId)
            #expect(nobodys.post.message == "made by psql")
            let inFull = try await feed.changes(after: 0, limit: 10, ownInFull: true)
            #expect(inFull.map(\.sequence) == entries.map(\.sequence))
            #expect(inFull.allSatisfy { if case .change = $0 { true } else { false } })
            if case .change(let own) = inFull.first { #expect(own.post.id == ownId && own.post.message == "made here") }
        }
    }

    @Test func ownAnnouncementsWakeNobodyHereAnotherProcessesDo() async throws {
        let endpoint = try await TestDatabase.fresh()
        try await TestDatabase.withClient(endpoint) { client in
            let feed = PostgresChangeFeed(client: DatabasePool(client), logger: TestDatabase.logger)
            let wakes = Atomic(0)
            let listening = Task { try await feed.listen { wakes.add(1, ordering: .relaxed) } }
            defer { listening.cancel() }
            let deadline = ContinuousClock.now + .seconds(20)
            // One wake when listening starts.
            while wakes.load(ordering: .relaxed) < 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            for _ in 0..<3 { try await feed.announce() }
            try await client.query("SELECT pg_notify('post_changes', 'another-process')", logger: TestDatabase.logger)
            while wakes.load(ordering: .relaxed) < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            try await Task.sleep(for: .milliseconds(300))
            #expect(wakes.load(ordering: .relaxed) == 2, "woken \(wakes.load(ordering: .relaxed)) times: the start and the other process only")
        }
    }
}
