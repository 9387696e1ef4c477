import Synchronization

/// Open live streams per client address, bounded.
final class StreamCounter: Sendable {
    let limitPerClient: Int
    private let open = Mutex<[String: Int]>([:])

    init(limitPerClient: Int) { self.limitPerClient = limitPerClient }

    struct Ticket: Sendable {
        let counter: StreamCounter
        let client: String
        func close() { counter.close(client) }
    }

    func open(for client: String) -> Ticket? {
        let admitted = open.withLock { counts -> Bool in
            guard counts[client, default: 0] < limitPerClient else { return false }
            counts[client, default: 0] += 1
            return true
        }
        return admitted ? Ticket(counter: self, client: client) : nil
    }

    private func close(_ client: String) {
        open.withLock { counts in
            counts[client, default: 1] -= 1
            if counts[client] == 0 { counts[client] = nil }
        }
    }
}
