import Foundation

/// Whether points lie within a circle, decided as `Geodesy.distance(centre, point) <= radius`
/// would decide it, but mostly without trigonometry: the squared chord between unit vectors is
/// compared with the circle's own (4 sin²(r / 2R), haversine's `a` times four), and only a
/// point within a hair of the edge, where rounding could tip the comparison, is measured the
/// textbook way.
public struct CircleTest: Sendable {
    public let lat: Double
    public let lon: Double
    public let radius: Double
    @usableFromInline let centre: UnitVector
    @usableFromInline let inner: Double
    @usableFromInline let outer: Double

    public init(lat: Double, lon: Double, radius: Double) {
        self.lat = lat
        self.lon = lon
        self.radius = radius
        centre = UnitVector(lat: lat, lon: lon)
        let half = sin(min(radius / Geodesy.earthRadiusMeters, .pi) / 2)
        let limit = 4 * half * half
        // The vectors' rounding moves a squared chord by far less than this margin.
        inner = limit * (1 - 1e-6) - 1e-15
        outer = limit * (1 + 1e-6) + 1e-15
    }

    /// `point` is the unit vector of (`lat`, `lon`), computed once by the caller for many circles.
    @inlinable
    public func contains(_ point: UnitVector, lat: Double, lon: Double) -> Bool {
        let dx = point.x - centre.x, dy = point.y - centre.y, dz = point.z - centre.z
        let chord = dx * dx + dy * dy + dz * dz
        if chord < inner { return true }
        if chord > outer { return false }
        return Geodesy.distance(lat1: self.lat, lon1: self.lon, lat2: lat, lon2: lon) <= radius
    }
}
