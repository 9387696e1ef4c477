import Metrics
import NoticeBoardCore
import PostgresNIO
import Synchronization

/// Connection failures become `StoreError.unavailable` (the HTTP layer answers 503); errors
/// thrown on purpose inside a transaction come out as themselves.
enum StoreErrors {
    /// How long a request's database work may take before the request gets 503: when
    /// PostgreSQL is down, PostgresNIO waits for a connection indefinitely.
    static let deadline: Duration = .seconds(5)
    static let inFlight = Atomic<Int>(0)
    // Made once, on first use (after `serve` has bootstrapped the metrics system), not per call.
    static let operationsInFlight = Gauge(label: "noticeboard_db_operations_in_flight")
    static let operationLatency = Timer(label: "noticeboard_db_operation_seconds")

    /// `translating`, bounded by `deadline`: the caller gets 503 then, and its cancellation
    /// reaches the work. The work is cancelled at the deadline, but a write that commits after
    /// all is found again by retrying with the same Idempotency-Key.
    static func bounded<T: Sendable>(
        deadline: Duration = StoreErrors.deadline, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = FirstOutcome<T>()
        let work = Task {
            // What requests wait for: database operations in flight (the pool's use) and their latency.
            operationsInFlight.record(Self.inFlight.wrappingAdd(1, ordering: .relaxed).newValue)
            let started = ContinuousClock.now
            let result = await Result(catching: { try await translating(body) })
            operationLatency.record(duration: ContinuousClock.now - started)
            operationsInFlight.record(Self.inFlight.wrappingSubtract(1, ordering: .relaxed).newValue)
            race.finish(result)
        }
        let ticket = DeadlineWatch.shared.watch(until: .now + deadline) {
            if race.finish(.failure(StoreError.unavailable("no answer from the database within \(deadline)"))) { work.cancel() }
        }
        defer { DeadlineWatch.shared.cancel(ticket) }
        return try await withTaskCancellationHandler {
            try await race.value()
        } onCancel: {
            work.cancel()
            race.finish(.failure(CancellationError()))
        }
    }

    static func translating<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StoreError {
            throw error
        } catch let error as ModerationError {
            throw error
        } catch let error as any DeliberateRollback {
            throw error
        } catch let error as PostgresTransactionError {
            if let inner = error.closureError as? StoreError { throw inner }
            if let inner = error.closureError as? any DeliberateRollback { throw inner }
            if let inner = error.closureError as? ModerationError { throw inner }
            if let inner = error.closureError as? PSQLError, inner.serverInfo?[.sqlState]?.hasPrefix("22") == true {
                throw StoreError.invalidInput(inner.serverInfo?[.message] ?? "invalid value")
            }
            throw StoreError.unavailable(String(reflecting: error.closureError ?? error.beginError ?? error.commitError ?? error))
        } catch let error as PSQLError where error.code != .server {
            throw StoreError.unavailable("\(error.code)")
        } catch let error as PSQLError where error.serverInfo?[.sqlState]?.hasPrefix("22") == true {
            throw StoreError.invalidInput(error.serverInfo?[.message] ?? "invalid value")
        } catch let error as PSQLError where isPassing(error.serverInfo?[.sqlState]) {
            throw StoreError.unavailable(error.serverInfo?[.message] ?? "the database is not available")
        }
    }

    /// SQLSTATE classes of a database that is restarting, overloaded or failing over: connection
    /// exceptions (08), a read-only transaction on a standby not yet promoted (25), serialization
    /// failures and deadlocks (40), insufficient resources (53), operator intervention (57:
    /// shutting down, starting up), system errors (58). Retrying helps.
    static func isPassing(_ sqlState: String?) -> Bool {
        guard let sqlState else { return false }
        return ["08", "25", "40", "53", "57", "58"].contains(String(sqlState.prefix(2)))
    }
}

/// Thrown inside a transaction to undo it on purpose (a claimed idempotency key with the rest):
/// comes out of `StoreErrors` as itself, for the store to turn into its answer.
protocol DeliberateRollback: Error {}
