/// What the web page is told at `/config.json`, and where its vendored Leaflet lives.
public struct PageSettings: Sendable {
    public static let openStreetMapTiles = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    public static let openStreetMapAttribution = "© OpenStreetMap contributors"
    public static let debianLeaflet = "/usr/share/javascript/leaflet"

    public var tileURL: String
    public var tileAttribution: String
    public var leafletDirectory: String

    public init(tileURL: String = openStreetMapTiles, tileAttribution: String = openStreetMapAttribution, leafletDirectory: String = debianLeaflet) {
        self.tileURL = tileURL
        self.tileAttribution = tileAttribution
        self.leafletDirectory = leafletDirectory
    }
}
