import Foundation
import Hummingbird
import NoticeBoardCore
import Prometheus

/// `GET /metrics` in the Prometheus text format: the request counters and latency histograms
/// that Hummingbird's metrics middleware records through swift-metrics, plus the board's own
/// gauges, read at scrape time.
struct MetricsRoutes: Sendable {
    let registry: PrometheusCollectorRegistry
    let board: Board
    let postsIndexed: Gauge
    let streamSubscribers: Gauge
    let indexReady: Gauge
    let residentBytes: Gauge
    let places: Gauge
    let placeRevision: Gauge
    /// When set, a scrape must carry `Authorization: Bearer <token>`.
    let token: String?

    init(registry: PrometheusCollectorRegistry, board: Board, token: String? = nil) {
        self.registry = registry
        self.token = token
        self.board = board
        postsIndexed = Self.gauge(registry, "posts_indexed", help: "Visible posts in the in-memory index.")
        streamSubscribers = Self.gauge(registry, "stream_subscribers", help: "Open live streams on this instance.")
        indexReady = Self.gauge(registry, "index_ready", help: "1 once the index is loaded.")
        residentBytes = Self.gauge(registry, "process_resident", unit: "bytes", help: "Resident memory of the process; the index is most of it.")
        places = Self.gauge(registry, "places", help: "Places this instance knows.")
        placeRevision = Self.gauge(
            registry, "place_revision", help: "The store's place revision this instance has loaded (instances agree when in step).")
    }

    /// `noticeboard_<name>[_<unit>]`, with its help line.
    static func gauge(_ registry: PrometheusCollectorRegistry, _ name: String, unit: String = "", help: String) -> Gauge {
        registry.makeGauge(descriptor: MetricNameDescriptor(namespace: "noticeboard", metricName: name, unitName: unit, helpText: help))
    }

    func register(on routes: Routes<some RouterMethods<AppRequestContext>>) {
        routes.on(.get, "/metrics") { request, _ in
            if let token {
                let expected = Array("Bearer \(token)".utf8)
                let given = Array((request.headers[.authorization] ?? "").utf8)
                guard Self.constantTimeEqual(given, expected) else {
                    throw APIError(.unauthorized, code: "unauthorized", message: "the metrics need a bearer token", headers: [.wwwAuthenticate: "Bearer"])
                }
            }
            postsIndexed.set(Double(board.postCount))
            streamSubscribers.set(Double(board.feed.subscriberCount))
            indexReady.set(board.isLoaded ? 1.0 : 0.0)
            places.set(Double(board.placeCount))
            placeRevision.set(Double(board.placeRevision))
            if let resident = Self.residentMemoryBytes() { residentBytes.set(Double(resident)) }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The second field of `/proc/self/statm` (resident pages); nil where there is no procfs.
    static func residentMemoryBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
