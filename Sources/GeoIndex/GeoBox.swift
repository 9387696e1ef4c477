/// A latitude/longitude box with inclusive edges. `west > east` means the box crosses the
/// antimeridian. Longitudes 180 and -180 are the same meridian.
public struct GeoBox: Sendable, Hashable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    public static let world = GeoBox(west: -180, south: -90, east: 180, north: 90)

    public var crossesAntimeridian: Bool { west > east }

    @inlinable
    public func contains(lat: Double, lon: Double) -> Bool {
        guard lat >= south, lat <= north else { return false }
        if containsLongitude(lon) { return true }
        // The antimeridian has two names; a post stored at one is inside a box naming the other.
        if lon == 180 { return containsLongitude(-180) }
        if lon == -180 { return containsLongitude(180) }
        return false
    }

    @inlinable
    func containsLongitude(_ lon: Double) -> Bool {
        crossesAntimeridian ? (lon >= west || lon <= east) : (lon >= west && lon <= east)
    }

    /// The box split into at most two boxes that do not cross the antimeridian.
    public var nonCrossingParts: [GeoBox] {
        guard crossesAntimeridian else { return [self] }
        return [
            GeoBox(west: west, south: south, east: 180, north: north),
            GeoBox(west: -180, south: south, east: east, north: north),
        ]
    }
}
