import Metrics
import NIOCore

/// A connection's one deadline (idle between requests, or a body's arrival), moved on every
/// request without touching the event loop's timers: moving it records a time, and the timer is
/// scheduled again only when it would otherwise fire too late. When it fires early it looks at the
/// deadline it finds and waits again. Confined to the connection's event loop.
final class ConnectionDeadlineTimer {
    private var deadline: NIODeadline?
    private var phase = "idle"
    private var timer: Scheduled<Void>?
    private var timerFiresAt: NIODeadline?
    /// What happens at the deadline instead of a plain close (a walk says goodbye first).
    var onExpiry: ((any Channel) -> Void)?

    func set(after delay: Duration, phase: String) {
        deadline = .now() + TimeAmount(delay)
        self.phase = phase
    }

    func clear() { deadline = nil }

    /// Makes sure a timer fires no later than the deadline; called once a batch of reads or a
    /// response is handled, so a request read whole in one batch schedules nothing.
    func cover(channel: any Channel) {
        guard let deadline else { return }
        if let timerFiresAt, timerFiresAt <= deadline { return }
        timer?.cancel()
        schedule(at: deadline, channel: channel)
    }

    func stop() {
        timer?.cancel()
        timer = nil
        timerFiresAt = nil
        deadline = nil
    }

    private func schedule(at time: NIODeadline, channel: any Channel) {
        let this = NIOLoopBound(self, eventLoop: channel.eventLoop)
        timerFiresAt = time
        timer = channel.eventLoop.scheduleTask(deadline: time) { this.value.fired(channel: channel) }
    }

    private func fired(channel: any Channel) {
        timer = nil
        timerFiresAt = nil
        guard let deadline else { return }
        if deadline <= .now() {
            if let onExpiry {
                Counter(label: "noticeboard_connections_timed_out_total", dimensions: [("phase", phase)]).increment()
                onExpiry(channel)
            } else {
                ConnectionDeadline.expire(channel, phase: phase)
            }
        } else {
            schedule(at: deadline, channel: channel)
        }
    }
}
