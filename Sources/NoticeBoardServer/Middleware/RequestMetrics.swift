import Hummingbird
import Metrics
import NoticeBoardCore
import Synchronization

/// Request counts, latencies and errors per route, method and status, and requests in flight,
/// under Hummingbird's metric names (`hb_requests`, `http_server_request_duration`, …).
/// The time is taken when the response is ready, not once its body is written as Hummingbird's
/// own `MetricsMiddleware` does, because wrapping the body turns a response into three socket writes.
/// The metric objects are made once per route, method and status: asking the metrics factory
/// for one by its labels on every request is a lookup under the factory's lock.
final class RequestMetrics: Sendable {
    struct Endpoint: Sendable {
        let requests: Counter
        let duration: Metrics.Timer
        let errors: Counter
    }

    private struct EndpointKey: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: Int
    }

    private let endpoints = Mutex<[EndpointKey: Endpoint]>([:])
    private let inFlight = Mutex<[HTTPRequest.Method: Meter]>([:])

    /// Counts a finished request; `failed` when a handler threw (its error became the response).
    func record(route: String?, method: HTTPRequest.Method, status: HTTPResponse.Status, failed: Bool, since started: ContinuousClock.Instant) {
        let endpoint = endpoint(route: route ?? (failed ? "NotFound" : "Unknown"), method: method, status: status)
        endpoint.requests.increment()
        endpoint.duration.recordNanoseconds((ContinuousClock.now - started).nanoseconds)
        if failed { endpoint.errors.increment() }
    }

    /// The gauge of requests in flight with this method.
    func active(_ method: HTTPRequest.Method) -> Meter {
        inFlight.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
            meters[method] = meter
            return meter
        }
    }

    private func endpoint(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status) -> Endpoint {
        let key = EndpointKey(route: route, method: method, status: status.code)
        return endpoints.withLock { cache in
            if let endpoint = cache[key] { return endpoint }
            let dimensions = [("http.route", route), ("http.request.method", method.rawValue), ("http.response.status_code", String(status.code))]
            let endpoint = Endpoint(
                requests: Counter(label: "hb.requests", dimensions: dimensions),
                duration: Metrics.Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds),
                errors: Counter(
                    label: "hb.request.errors",
                    dimensions: [("http.route", route), ("http.request.method", method.rawValue), ("error.type", String(status.code))]))
            cache[key] = endpoint
            return endpoint
        }
    }
}
