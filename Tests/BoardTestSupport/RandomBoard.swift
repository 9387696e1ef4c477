import GeoIndex

/// The shapes of random data the index must handle.
public enum BoardShape: String, CaseIterable, Sendable {
    /// A few dense city clusters, like real boards.
    case cities
    /// Uniform over the sphere's lat/lon rectangle.
    case uniform
    /// Hugging the antimeridian, including exactly 180 and -180.
    case antimeridian
    /// Near and at both poles.
    case poles
    /// Many posts at a handful of identical coordinates.
    case duplicates
}

/// A random post's attributes, independent of any index type.
public struct SamplePost: Sendable, Equatable {
    public var id: Int64
    public var lat: Double
    public var lon: Double
    public var heading: Double?
    public var tag: String
    public var createdAt: Int64
    public var floor: Int?

    public init(id: Int64, lat: Double, lon: Double, heading: Double?, tag: String, createdAt: Int64, floor: Int?) {
        self.id = id
        self.lat = lat
        self.lon = lon
        self.heading = heading
        self.tag = tag
        self.createdAt = createdAt
        self.floor = floor
    }
}

public enum RandomBoard {
    public static let tags = ["food", "fashion", "lifestyle", "entertainment", "美食", "street art"]
    /// 2026-01-01T00:00:00Z; posts span the following 30 days (with repeats, for time ties).
    public static let epoch: Int64 = 1_767_225_600_000

    public static func posts(_ shape: BoardShape, count: Int, using rng: inout SeededGenerator) -> [SamplePost] {
        let centres = (0..<4).map { _ in (Double.random(in: -60...60, using: &rng), Double.random(in: -179...179, using: &rng)) }
        let spots = (0..<5).map { _ in (Double.random(in: -80...80, using: &rng), Double.random(in: -180...180, using: &rng)) }
        return (0..<count).map { index in
            let (lat, lon): (Double, Double)
            switch shape {
            case .cities:
                let centre = centres[index % centres.count]
                (lat, lon) = (centre.0 + Double.random(in: -0.02...0.02, using: &rng), centre.1 + Double.random(in: -0.02...0.02, using: &rng))
            case .uniform:
                (lat, lon) = (Double.random(in: -90...90, using: &rng), Double.random(in: -180...180, using: &rng))
            case .antimeridian:
                let edge: [Double] = [180, -180, 179.9999, -179.9999]
                let lonValue = Bool.random(using: &rng) ? edge.randomElement(using: &rng)!
                    : (Bool.random(using: &rng) ? 1 : -1) * Double.random(in: 179.95...180, using: &rng)
                (lat, lon) = (Double.random(in: -1...1, using: &rng), lonValue)
            case .poles:
                let pole: Double = Bool.random(using: &rng) ? 90 : -90
                let latValue = index % 7 == 0 ? pole : pole - (pole > 0 ? 1 : -1) * Double.random(in: 0...0.05, using: &rng)
                (lat, lon) = (latValue, Double.random(in: -180...180, using: &rng))
            case .duplicates:
                let spot = spots[index % spots.count]
                (lat, lon) = spot
            }
            // On the 1e-7° grid, as every stored post is.
            return SamplePost(
                id: Int64(index + 1), lat: FixedDegrees.quantized(min(90, max(-90, lat))),
                lon: FixedDegrees.quantized(min(180, max(-180, lon))),
                heading: index % 5 == 0 ? nil : Double(Int.random(in: 0..<3600, using: &rng)) / 10,
                tag: tags[Int.random(in: 0..<tags.count, using: &rng)],
                createdAt: epoch + Int64.random(in: 0..<(30 * 86_400), using: &rng) / 60 * 60_000,
                floor: index % 3 == 0 ? nil : Int.random(in: -2...5, using: &rng))
        }
    }

    /// A viewer position near the data (or anywhere), so queries find something and sometimes nothing.
    public static func viewer(near posts: [SamplePost], using rng: inout SeededGenerator) -> (lat: Double, lon: Double) {
        if posts.isEmpty || Int.random(in: 0..<10, using: &rng) == 0 {
            return (Double.random(in: -90...90, using: &rng), Double.random(in: -180...180, using: &rng))
        }
        let post = posts.randomElement(using: &rng)!
        if Bool.random(using: &rng) { return (post.lat, post.lon) }
        let lat = min(90, max(-90, post.lat + Double.random(in: -0.01...0.01, using: &rng)))
        var lon = post.lon + Double.random(in: -0.01...0.01, using: &rng)
        if lon > 180 { lon -= 360 }
        if lon < -180 { lon += 360 }
        return (lat, lon)
    }
}
