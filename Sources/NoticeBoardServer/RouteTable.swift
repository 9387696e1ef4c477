import Hummingbird
import Synchronization

/// The routes' paths and methods, so an unknown method on a known path is a 405, not a 404.
/// A shared reference: the error middleware must be added before the routes it guards, and
/// learns them as they are registered.
final class RouteTable: Sendable {
    private let routes = Mutex<[(method: HTTPRequest.Method, segments: [String])]>([])

    func add(_ method: HTTPRequest.Method, _ path: String) {
        routes.withLock { $0.append((method, Self.segments(path))) }
    }

    /// Registers a handler on the router and records its route. A `GET` route answers `HEAD`
    /// too (`HeadMiddleware` drops the body), unless `head` is false: a stream has no end to measure.
    func on<Context: RequestContext>(
        _ router: Router<Context>, _ method: HTTPRequest.Method, _ path: String, head: Bool = true,
        use handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) {
        router.on(RouterPath(path), method: method, use: handler)
        add(method, path)
        // `HEAD` goes unlisted in `Allow`, as it always comes with `GET`.
        if method == .get, head { router.on(RouterPath(path), method: .head, use: handler) }
    }

    /// The methods routed on a path (`{…}` segments match anything), for 405's `Allow` header.
    func allowedMethods(forPath path: String) -> [HTTPRequest.Method] {
        let requested = Self.segments(path)
        var methods: [HTTPRequest.Method] = []
        for route in routes.withLock({ $0 })
        where route.segments.count == requested.count
            && zip(route.segments, requested).allSatisfy({ $0.hasPrefix("{") || $0 == $1 }) && !methods.contains(route.method) {
            methods.append(route.method)
        }
        return methods
    }

    static func segments(_ path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }
}
