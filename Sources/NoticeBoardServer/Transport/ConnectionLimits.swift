import Metrics
import NIOCore
import Synchronization

/// How long a connection may take over each phase, and how many may be open. Every limit is
/// configurable (`noticeboard serve --help`); the defaults suit a public server.
public struct ConnectionSettings: Sendable {
    /// Open connections in all; `serve` lowers it below the process's descriptor limit.
    public var maxConnections = 10_000
    /// Open connections from one address (trusted proxies are exempt: they carry many clients);
    /// `nil`: a sixteenth of `maxConnections`, 8 to 256, so a few addresses cannot fill the cap.
    public var maxConnectionsPerAddress: Int?
    /// A connection must deliver a complete request head within this long of opening or of its
    /// last response: idle keep-alive connections and trickled headers are closed after it.
    public var idleTimeout: Duration = .seconds(30)
    /// A request's body must arrive in full within this long of its head.
    public var bodyTimeout: Duration = .seconds(30)
    /// A response that the client does not read for this long (the socket stays full) is dropped.
    public var writeTimeout: Duration = .seconds(30)
    /// After a shutdown signal, connections still busy are closed after this long.
    public var shutdownTimeout: Duration = .seconds(10)
    /// A walk (WebSocket) from which nothing arrives for this long is closed.
    public var walkIdleTimeout: Duration = .seconds(600)

    public init() {}

    public var perAddressCap: Int { maxConnectionsPerAddress ?? min(256, max(8, maxConnections / 16)) }

    /// The last eighth of the cap is kept for addresses holding fewer than `fewConnections`, so
    /// addresses that hold many cannot lock newcomers out.
    public var reserve: Int { maxConnections / 8 }
    static let fewConnections = 4

    /// Connections accepted at once: the cap and a few more, which are answered 503 and closed.
    public var acceptedAtMost: Int { maxConnections + max(8, min(64, maxConnections / 8)) }
}

/// Counts open connections, in all and per address, and admits or refuses new ones.
final class ConnectionLimits: Sendable {
    let settings: ConnectionSettings
    let exempt: Set<String>
    private let open = Mutex<(total: Int, byAddress: [String: Int])>((0, [:]))
    static let openGauge = Gauge(label: "noticeboard_connections_open")

    init(settings: ConnectionSettings, exemptAddresses: [String]) {
        self.settings = settings
        self.exempt = Set(exemptAddresses)
    }

    enum Admission: String { case admitted, tooMany = "total", tooManyFromAddress = "address", reserved = "reserve" }

    func admit(_ address: String) -> Admission {
        let perAddress = settings.perAddressCap
        let unreserved = settings.maxConnections - settings.reserve
        let (admission, total) = open.withLock { open -> (Admission, Int) in
            guard open.total < settings.maxConnections else { return (.tooMany, open.total) }
            if !exempt.contains(address) {
                let held = open.byAddress[address, default: 0]
                guard held < perAddress else { return (.tooManyFromAddress, open.total) }
                if open.total >= unreserved, held >= ConnectionSettings.fewConnections { return (.reserved, open.total) }
                open.byAddress[address, default: 0] += 1
            }
            open.total += 1
            return (.admitted, open.total)
        }
        Self.openGauge.record(total)
        if admission != .admitted {
            Counter(label: "noticeboard_connections_refused_total", dimensions: [("reason", admission.rawValue)]).increment()
        }
        return admission
    }

    func release(_ address: String) {
        let total = open.withLock { open -> Int in
            if !exempt.contains(address) {
                open.byAddress[address, default: 1] -= 1
                if open.byAddress[address] == 0 { open.byAddress[address] = nil }
            }
            open.total -= 1
            return open.total
        }
        Self.openGauge.record(total)
    }

    var openCount: Int { open.withLock { $0.total } }

    /// Refusals that wait for their client to read the answer hold descriptors outside the caps;
    /// only a few may at once, the rest close at once.
    private let lingering = Atomic<Int>(0)
    static let maxLingering = 32

    func startLingering() -> Bool {
        if lingering.wrappingAdd(1, ordering: .relaxed).newValue <= Self.maxLingering { return true }
        lingering.wrappingSubtract(1, ordering: .relaxed)
        return false
    }

    func stopLingering() { lingering.wrappingSubtract(1, ordering: .relaxed) }
}
