import Dispatch

/// A task executor on a dispatch queue of its own, for long CPU-bound work (loading the index:
/// a million rows decoded, then a bulk build). `serve` runs every other task on the event
/// loops; work like this would stall the connections of the loop it landed on and, sharing a
/// loop with the database connection, decode rows no faster than one core reads them.
final class BackgroundExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
