/// What the web page is told at `/config.json`, and where its vendored Leaflet and Chart.js live.
public struct PageSettings: Sendable {
    public static let openStreetMapTiles = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    public static let openStreetMapAttribution = "© OpenStreetMap contributors"
    public static let debianLeaflet = "/usr/share/javascript/leaflet"
    public static let debianChartJS = "/usr/share/javascript/chart.js"

    public var tileURL: String
    public var tileAttribution: String
    public var leafletDirectory: String
    /// Debian's libjs-chart.js, for the moderators' dashboard.
    public var chartDirectory: String

    public init(
        tileURL: String = openStreetMapTiles, tileAttribution: String = openStreetMapAttribution, leafletDirectory: String = debianLeaflet,
        chartDirectory: String = debianChartJS
    ) {
        self.tileURL = tileURL
        self.tileAttribution = tileAttribution
        self.leafletDirectory = leafletDirectory
        self.chartDirectory = chartDirectory
    }
}
