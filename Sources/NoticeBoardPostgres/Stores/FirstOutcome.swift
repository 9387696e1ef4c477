import Synchronization

/// The first of several results; later ones are dropped. `value()` waits for it.
final class FirstOutcome<T: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<T, any Error>?)
        case finished(Result<T, any Error>)
    }
    private let state = Mutex<State>(.waiting(nil))

    init() {}

    /// Records `result` if none came before; returns whether it did.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let waiter: CheckedContinuation<T, any Error>?? = state.withLock { state in
            guard case .waiting(let continuation) = state else { return .none }
            state = .finished(result)
            return .some(continuation)
        }
        guard case .some(let continuation) = waiter else { return false }
        continuation?.resume(with: result)
        return true
    }

    var isFinished: Bool {
        state.withLock { state in if case .finished = state { true } else { false } }
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let finished: Result<T, any Error>? = state.withLock { state in
                switch state {
                case .finished(let result): return result
                case .waiting: state = .waiting(continuation); return nil
                }
            }
            if let finished { continuation.resume(with: finished) }
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
