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

    init(registry: PrometheusCollectorRegistry, board: Board) {
        self.registry = registry
        self.board = board
        postsIndexed = registry.makeGauge(name: "noticeboard_posts_indexed", help: "Visible posts in the in-memory index.")
        streamSubscribers = registry.makeGauge(name: "noticeboard_stream_subscribers", help: "Open live streams on this instance.")
        indexReady = registry.makeGauge(name: "noticeboard_index_ready", help: "1 once the index is loaded.")
    }

    func register(on router: Router<AppRequestContext>, table: RouteTable) {
        table.on(router, .get, "/metrics") { _, _ in
            postsIndexed.set(Double(board.postCount))
            streamSubscribers.set(Double(board.feed.subscriberCount))
            indexReady.set(board.isLoaded ? 1.0 : 0.0)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
    }
}
