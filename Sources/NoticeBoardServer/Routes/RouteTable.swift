import Hummingbird
import Synchronization

/// The routes' paths and methods, so an unknown method on a known path is a 405, not a 404.
/// A shared reference: the error middleware must be added before the routes it guards, and
/// learns them as they are registered.
final class RouteTable: Sendable {
    private let routes = Mutex<[(method: HTTPRequest.Method, segments: [String])]>([])
    private let literalPaths = Mutex<Set<String>>([])

    func add(_ method: HTTPRequest.Method, _ path: String) {
        routes.withLock { $0.append((method, Self.segments(path))) }
        if !path.contains("{") { literalPaths.withLock { _ = $0.insert(path) } }
    }

    /// Whether a route without parameters has exactly this path (`/healthz`, `/metrics`).
    func isLiteralRoute(_ path: String) -> Bool {
        literalPaths.withLock { $0.contains(path) }
    }

    /// The methods routed on a path (`{…}` segments match anything), for 405's `Allow` header.
    /// Only the routes naming most segments literally count: `/posts/nearby` is not `/posts/{id}`.
    func allowedMethods(forPath path: String) -> [HTTPRequest.Method] {
        let requested = Self.segments(path)
        let matching = routes.withLock({ $0 }).filter { route in
            route.segments.count == requested.count && zip(route.segments, requested).allSatisfy({ $0.hasPrefix("{") || $0 == $1 })
        }
        let wildcards = { (route: (method: HTTPRequest.Method, segments: [String])) in route.segments.filter { $0.hasPrefix("{") }.count }
        let fewest = matching.map(wildcards).min()
        var methods: [HTTPRequest.Method] = []
        for route in matching where wildcards(route) == fewest && !methods.contains(route.method) { methods.append(route.method) }
        return methods
    }

    static func segments(_ path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }
}

/// Where routes are registered: the router or one of its groups, each route also recorded in
/// the table under its full path.
struct Routes<Methods: RouterMethods> {
    let methods: Methods
    let table: RouteTable
    /// The group's path, `""` for the router itself.
    let prefix: String

    /// Registers a handler. A `GET` route answers `HEAD` too (`HeadResponse` drops the body),
    /// unless `head` is false: a stream has no end to measure.
    func on(
        _ method: HTTPRequest.Method, _ path: String, head: Bool = true,
        use handler: @escaping @Sendable (Request, Methods.Context) async throws -> Response
    ) {
        methods.on(RouterPath(path), method: method, use: handler)
        table.add(method, prefix + path)
        // `HEAD` goes unlisted in `Allow`, as it always comes with `GET`.
        if method == .get, head { methods.on(RouterPath(path), method: .head, use: handler) }
    }

    /// Routes below `path` that pass through `middleware` first (and only they do).
    func group(_ path: String, middleware: some RouterMiddleware<Methods.Context>) -> Routes<RouterGroup<Methods.Context>> {
        Routes<RouterGroup<Methods.Context>>(methods: methods.group(RouterPath(path)).add(middleware: middleware), table: table, prefix: prefix + path)
    }
}
