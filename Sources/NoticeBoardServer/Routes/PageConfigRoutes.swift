import Hummingbird

/// `GET /config.json`: what the web page needs to know to draw its map.
struct PageConfigRoutes: Sendable {
    let page: PageSettings

    func register(on routes: Routes<some RouterMethods<AppRequestContext>>) {
        let config = ["tileURL": page.tileURL, "tileAttribution": page.tileAttribution]
        routes.on(.get, "/config.json") { _, _ in JSONResponse.make(config) }
    }
}
