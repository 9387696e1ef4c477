import Hummingbird
import Logging

/// The web page, Leaflet and Chart.js, read into memory at start and served where no route
/// answers (so `/` and its assets), with Last-Modified/ETag revalidation and gzipped twins (the
/// page's own made at start, the libraries' shipped by Debian).
/// Called by `RequestPolicyMiddleware`, not a layer of its own: requests for the API and the
/// probes pass straight through, and only other paths go through the six file middlewares inside it.
struct PageFilesMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteTable
    let pageGzipped: GzippedPageFiles<Context>
    let page: FileMiddleware<Context, InMemoryFiles>
    let leafletGzipped: PrecompressedFilesMiddleware<Context>
    let leaflet: FileMiddleware<Context, InMemoryFiles>
    let chartsGzipped: PrecompressedFilesMiddleware<Context>
    let charts: FileMiddleware<Context, InMemoryFiles>

    init(settings: ServerSettings, routes: RouteTable, logger: Logger) {
        self.routes = routes
        let files = InMemoryFiles(directory: settings.resolvedWebDirectory, logger: logger)
        pageGzipped = GzippedPageFiles(files: files)
        page = FileMiddleware(fileProvider: files, cacheControl: .init([(MediaType(type: .any), [.noCache])]), searchForIndexHtml: true)
        // Leaflet from Debian's libjs-leaflet, under /vendor/leaflet/ (gzipped when the client accepts it).
        let leafletFiles = InMemoryFiles(directory: settings.page.leafletDirectory, logger: logger)
        leafletGzipped = PrecompressedFilesMiddleware(files: leafletFiles, urlPrefix: "/vendor/leaflet")
        leaflet = FileMiddleware(
            fileProvider: leafletFiles, urlBasePath: "/vendor/leaflet", cacheControl: .init([(MediaType(type: .any), [.maxAge(86400)])]))
        // Chart.js from Debian's libjs-chart.js, under /vendor/chartjs/, for the moderators' dashboard.
        let chartFiles = InMemoryFiles(directory: settings.page.chartDirectory, logger: logger)
        chartsGzipped = PrecompressedFilesMiddleware(files: chartFiles, urlPrefix: "/vendor/chartjs")
        charts = FileMiddleware(
            fileProvider: chartFiles, urlBasePath: "/vendor/chartjs", cacheControl: .init([(MediaType(type: .any), [.maxAge(86400)])]))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/api/") || routes.isLiteralRoute(path) { return try await next(request, context) }
        return try await pageGzipped.handle(request, context: context) { request, context in try await page.handle(request, context: context) { request, context in
            try await leafletGzipped.handle(request, context: context) { request, context in
                try await leaflet.handle(request, context: context) { request, context in
                    try await chartsGzipped.handle(request, context: context) { request, context in
                        try await charts.handle(request, context: context, next: next)
                    }
                }
            }
        } }
    }
}
