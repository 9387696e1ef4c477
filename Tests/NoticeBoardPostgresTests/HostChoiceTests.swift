import DatabaseTestSupport
import Foundation
import NoticeBoardCore
import PostgresNIO
import Testing

@testable import NoticeBoardPostgres

/// Which database host a pool takes: never a stale primary (behind a newer one, or behind the
/// timeline the instance wrote on), never one of two primaries; and the pool ends in time.
@Suite(.timeLimit(.minutes(5))) struct HostChoiceTests {
    let node1 = DatabaseHost(name: "127.0.0.1", port: 6001)
    let node2 = DatabaseHost(name: "127.0.0.1", port: 6002)

    func primary(_ timeline: Int) -> HostProbe.Role { .init(inRecovery: false, readOnly: false, timeline: timeline) }
    let standby = HostProbe.Role(inRecovery: true, readOnly: true, timeline: 0)

    @Test func anOldPrimaryStartedByHandIsRefusedThoughItComesFirst() {
        let choice = HostProbe.choose(among: [(node1, primary(1)), (node2, primary(2))], target: .readWrite, lastWritten: 0)
        #expect(choice.host == node2 && choice.timeline == 2)
        #expect(choice.refusals.count == 1 && choice.refusals[0].contains("127.0.0.1:6001 accepts writes on timeline 1, behind timeline 2"))
    }

    @Test func aPrimaryBehindTheTimelineLastWrittenOnIsRefusedAlone() {
        let choice = HostProbe.choose(among: [(node1, primary(1)), (node2, nil)], target: .readWrite, lastWritten: 2)
        #expect(choice.host == nil)
        #expect(choice.refusals.first?.contains("the timeline this instance last wrote on") == true)
        // The same host on the timeline written on is taken.
        #expect(HostProbe.choose(among: [(node1, primary(2)), (node2, nil)], target: .readWrite, lastWritten: 2).host == node1)
    }

    @Test func twoPrimariesOnTheSameTimelineAreBothRefused() {
        let choice = HostProbe.choose(among: [(node1, primary(3)), (node2, primary(3))], target: .readWrite, lastWritten: 0)
        #expect(choice.host == nil && choice.fitting.isEmpty)
        #expect(choice.refusals.first?.contains("refused until one stops") == true)
    }

    @Test func readsPreferAStandbyAndElseTheCurrentPrimaryNotTheStaleOne() {
        #expect(HostProbe.choose(among: [(node1, primary(1)), (node2, standby)], target: .preferStandby, lastWritten: 0).host == node2)
        let choice = HostProbe.choose(among: [(node1, primary(1)), (node2, primary(2))], target: .preferStandby, lastWritten: 0)
        #expect(choice.host == node2 && !choice.fitting.contains(node1))
    }

    @Test func theFenceKeepsTheNewestTimelineAcrossARestart() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fence-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let fence = TimelineFence(file: file)
        #expect(fence.lastWritten == 0)
        #expect(fence.record(2))
        #expect(!fence.record(1), "an older timeline is not one to write on")
        #expect(TimelineFence(file: file).lastWritten == 2)
    }

    @Test func aPoolWithNoHostFailsCallsAsUnavailableAndStopsInTime() async throws {
        // Two ports nothing listens on (bound and closed at once).
        let endpoint = DatabaseEndpoint(
            hosts: [DatabaseHost(name: "127.0.0.1", port: 1), DatabaseHost(name: "127.0.0.1", port: 2)], username: "u", password: "p",
            database: "d", targetSession: .readWrite)
        let pool = DatabasePool(endpoint: endpoint, logger: TestDatabase.logger)
        let running = Task { await pool.run() }
        let started = ContinuousClock.now
        await #expect(throws: StoreError.self) { try await pool.query("SELECT 1", logger: TestDatabase.logger) }
        #expect(ContinuousClock.now - started < .seconds(10), "far sooner than a hang; searchWait is 2 s, a busy machine adds to it")
        #expect(pool.unavailableReason != nil)
        running.cancel()
        let cancelled = ContinuousClock.now
        await running.value
        #expect(ContinuousClock.now - cancelled < .seconds(10), "the pool's shutdown waited on its search")
    }

    @Test func aStatementPastItsTimeoutIsEndedByPostgreSQL() async throws {
        var endpoint = try await TestDatabase.fresh()
        endpoint.targetSession = .readWrite
        endpoint.statementTimeout = .milliseconds(500)
        let pool = DatabasePool(endpoint: endpoint, logger: TestDatabase.logger)
        let running = Task { await pool.run() }
        defer { running.cancel() }
        // The pool takes a host once its first probe answers (later on a busy machine).
        let probing = ContinuousClock.now
        while (try? await pool.query("SELECT 1", logger: TestDatabase.logger)) == nil, ContinuousClock.now - probing < .seconds(20) {
            try await Task.sleep(for: .milliseconds(100))
        }
        let started = ContinuousClock.now
        await #expect(throws: PSQLError.self) {
            for try await _ in try await pool.query("SELECT pg_sleep(30)", logger: TestDatabase.logger) {}
        }
        #expect(ContinuousClock.now - started < .seconds(10))
        // The backend is free again: it answers, and no statement of ours is left running.
        let rows = try await pool.query(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'SELECT pg_sleep%' AND state = 'active'",
            logger: TestDatabase.logger)
        for try await count in rows.decode(Int.self) { #expect(count == 0) }
        #expect(pool.unavailableReason == nil)
    }
}
