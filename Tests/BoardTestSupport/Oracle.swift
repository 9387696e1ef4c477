import Foundation

/// The contract's formulas applied by brute force to every post: what every query must equal.
/// Written apart from the index on purpose; only the spherical formulas are shared, and those
/// are checked against known values on their own.
public enum Oracle {
    public static let earthRadius = 6_371_008.8

    public struct Nearby: Sendable {
        public var lat: Double
        public var lon: Double
        public var radius: Double
        public var facing: Double?
        public var fov: Double = 60
        public var accuracy: Double = 10
        public var heading: Double?
        public var tolerance: Double = 45
        public var tags: Set<String>?
        public var from: Int64?
        public var to: Int64?
        public var floor: Int?
        public var newest = false

        public init(lat: Double, lon: Double, radius: Double) {
            self.lat = lat
            self.lon = lon
            self.radius = radius
        }
    }

    public struct Hit: Sendable, Equatable {
        public var id: Int64
        public var distance: Double
        public var bearing: Double
        public var createdAt: Int64
    }

    public static func nearby(_ posts: [SamplePost], _ q: Nearby) -> [Hit] {
        var hits: [Hit] = []
        for post in posts {
            if let tags = q.tags, !tags.contains(post.tag) { continue }
            if let from = q.from, post.createdAt < from { continue }
            if let to = q.to, post.createdAt >= to { continue }
            if let floor = q.floor, post.floor != floor { continue }
            if let heading = q.heading, let postHeading = post.heading, difference(heading, postHeading) > q.tolerance { continue }
            let d = distance(q.lat, q.lon, post.lat, post.lon)
            if d > q.radius { continue }
            let b = bearing(q.lat, q.lon, post.lat, post.lon)
            if let facing = q.facing, d > q.accuracy, difference(b, facing) > q.fov / 2 { continue }
            hits.append(Hit(id: post.id, distance: d, bearing: b, createdAt: post.createdAt))
        }
        if q.newest {
            hits.sort { $0.createdAt != $1.createdAt ? $0.createdAt > $1.createdAt : $0.id > $1.id }
        } else {
            hits.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.id < $1.id }
        }
        return hits
    }

    /// Posts in the box (edges inclusive, `west > east` crossing ±180, which are one meridian), newest first.
    public static func browse(
        _ posts: [SamplePost], west: Double, south: Double, east: Double, north: Double, tags: Set<String>? = nil,
        from: Int64? = nil, to: Int64? = nil
    ) -> [SamplePost] {
        posts.filter { post in
            guard post.lat >= south, post.lat <= north else { return false }
            let names = abs(post.lon) == 180 ? [180.0, -180.0] : [post.lon]
            let inside = names.contains { lon in west <= east ? (lon >= west && lon <= east) : (lon >= west || lon <= east) }
            guard inside else { return false }
            if let tags, !tags.contains(post.tag) { return false }
            if let from, post.createdAt < from { return false }
            if let to, post.createdAt >= to { return false }
            return true
        }.sorted { $0.createdAt != $1.createdAt ? $0.createdAt > $1.createdAt : $0.id > $1.id }
    }

    public static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let p1 = lat1 * .pi / 180, p2 = lat2 * .pi / 180
        let dp = (lat2 - lat1) * .pi / 180, dl = (lon2 - lon1) * .pi / 180
        let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * earthRadius * asin(min(1, sqrt(max(0, a))))
    }

    public static func bearing(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let p1 = lat1 * .pi / 180, p2 = lat2 * .pi / 180, dl = (lon2 - lon1) * .pi / 180
        let theta = atan2(sin(dl) * cos(p2), cos(p1) * sin(p2) - sin(p1) * cos(p2) * cos(dl)) * 180 / .pi
        var normalized = theta.truncatingRemainder(dividingBy: 360)
        if normalized < 0 { normalized += 360 }
        return normalized >= 360 ? 0 : normalized
    }

    public static func difference(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return min(d, 360 - d)
    }
}
