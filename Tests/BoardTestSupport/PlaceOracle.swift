import Foundation

/// Point in polygon from the contract's definition, by brute force and apart from the index:
/// a ring of straight lon/lat edges, a step of more than 180° of longitude taken across the
/// antimeridian, points on an edge inside. Winding numbers in exact integer arithmetic on
/// 1e-7° units (the precision posts are stored at), a point tried at lon and lon ± 360.
public enum PlaceOracle {
    static let unitsPerDegree = 10_000_000.0
    static let turn: Int64 = 3_600_000_000

    public static func units(_ degrees: Double) -> Int64 { Int64((degrees * unitsPerDegree).rounded()) }

    public static func contains(ring: [(lon: Double, lat: Double)], lat: Double, lon: Double) -> Bool {
        Ring(ring).contains(lat: lat, lon: lon)
    }

    /// A ring unwrapped once, for testing many points.
    public struct Ring: Sendable {
        let xs: [Int64], ys: [Int64]
        let minX: Int64, maxX: Int64

        public init(_ ring: [(lon: Double, lat: Double)]) {
            var xs: [Int64] = [], ys: [Int64] = []
            for (i, vertex) in ring.enumerated() {
                let x = units(vertex.lon)
                if i == 0 {
                    xs.append(x)
                } else {
                    var step = x - units(ring[i - 1].lon)
                    if step > turn / 2 { step -= turn } else if step < -turn / 2 { step += turn }
                    xs.append(xs[i - 1] + step)
                }
                ys.append(units(vertex.lat))
            }
            (self.xs, self.ys, minX, maxX) = (xs, ys, xs.min()!, xs.max()!)
        }

        /// A point beyond the ring's longitudes is neither on an edge nor wound around.
        public func contains(lat: Double, lon: Double) -> Bool {
            let py = units(lat), px = units(lon)
            return [px, px + turn, px - turn].contains { x in
                x >= minX && x <= maxX && (onBoundary(xs, ys, x, py) || windingNumber(xs, ys, x, py) != 0)
            }
        }
    }

    static func cross(_ ax: Int64, _ ay: Int64, _ bx: Int64, _ by: Int64, _ px: Int64, _ py: Int64) -> Int128 {
        Int128(bx - ax) * Int128(py - ay) - Int128(px - ax) * Int128(by - ay)
    }

    static func onBoundary(_ xs: [Int64], _ ys: [Int64], _ px: Int64, _ py: Int64) -> Bool {
        (0..<xs.count).contains { i in
            let j = (i + 1) % xs.count
            return cross(xs[i], ys[i], xs[j], ys[j], px, py) == 0 && px >= min(xs[i], xs[j]) && px <= max(xs[i], xs[j])
                && py >= min(ys[i], ys[j]) && py <= max(ys[i], ys[j])
        }
    }

    /// Sunday's winding number: upward edges with the point on their left count +1, downward
    /// edges with it on their right −1.
    static func windingNumber(_ xs: [Int64], _ ys: [Int64], _ px: Int64, _ py: Int64) -> Int {
        var winding = 0
        for i in 0..<xs.count {
            let j = (i + 1) % xs.count
            if ys[i] <= py {
                if ys[j] > py, cross(xs[i], ys[i], xs[j], ys[j], px, py) > 0 { winding += 1 }
            } else if ys[j] <= py, cross(xs[i], ys[i], xs[j], ys[j], px, py) < 0 {
                winding -= 1
            }
        }
        return winding
    }
}

/// Rings of the kinds places come in, for tests.
public enum RandomRing {
    public static func wrapped(_ lon: Double) -> Double {
        var lon = lon
        while lon > 180 { lon -= 360 }
        while lon < -180 { lon += 360 }
        return (lon * PlaceOracle.unitsPerDegree).rounded() / PlaceOracle.unitsPerDegree
    }

    static func vertex(lon: Double, lat: Double) -> (lon: Double, lat: Double) {
        (wrapped(lon), (max(-90, min(90, lat)) * PlaceOracle.unitsPerDegree).rounded() / PlaceOracle.unitsPerDegree)
    }

    /// A star-shaped ring (concave unless `convex`) of `count` vertices around a centre.
    public static func star(lat: Double, lon: Double, radius: Double, count: Int, convex: Bool, using rng: inout SeededGenerator)
        -> [(lon: Double, lat: Double)]
    {
        var angles = Set<Int>()
        while angles.count < count { angles.insert(Int.random(in: 0..<3600, using: &rng)) }
        return angles.sorted().map { tenth in
            let angle = Double(tenth) / 1800 * .pi
            let r = convex ? radius : radius * Double.random(in: 0.2...1, using: &rng)
            return vertex(lon: lon + r * cos(angle), lat: lat + r * sin(angle))
        }
    }

    /// A band wound in a spiral: `count` vertices, out along one edge and back along the other.
    public static func spiral(lat: Double, lon: Double, count: Int) -> [(lon: Double, lat: Double)] {
        let half = count / 2, turns = 3.0, width = 0.003
        func point(_ i: Int, _ extra: Double) -> (lon: Double, lat: Double) {
            let theta = Double(i) / Double(half) * turns * 2 * .pi
            let r = 0.002 + 0.018 * Double(i) / Double(half) + extra
            return vertex(lon: lon + r * cos(theta), lat: lat + r * sin(theta))
        }
        return (0..<half).map { point($0, width) } + (0..<half).reversed().map { point($0, 0) }
    }

    /// A long thin triangle.
    public static func sliver(lat: Double, lon: Double, length: Double) -> [(lon: Double, lat: Double)] {
        [vertex(lon: lon, lat: lat), vertex(lon: lon + length / 2, lat: lat + 0.000_000_3), vertex(lon: lon + length, lat: lat)]
    }

    /// Points exactly on the ring: every vertex, and lattice points of 1e-7° along each edge.
    public static func boundaryPoints(_ ring: [(lon: Double, lat: Double)], perEdge: Int) -> [(lat: Double, lon: Double)] {
        var points: [(lat: Double, lon: Double)] = []
        for i in ring.indices {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            points.append((a.lat, a.lon))
            let ax = PlaceOracle.units(a.lon), ay = PlaceOracle.units(a.lat)
            var dx = PlaceOracle.units(b.lon) - ax
            if dx > PlaceOracle.turn / 2 { dx -= PlaceOracle.turn } else if dx < -PlaceOracle.turn / 2 { dx += PlaceOracle.turn }
            let dy = PlaceOracle.units(b.lat) - ay
            let g = gcd(abs(dx), abs(dy))
            guard g > 1 else { continue }
            let step: Int64 = max(1, g / Int64(perEdge))
            var k: Int64 = 1
            while k < g, k <= step * Int64(perEdge) {
                defer { k += step }
                let x = ax + dx / g * k, y = ay + dy / g * k
                points.append((Double(y) / PlaceOracle.unitsPerDegree, wrapped(Double(x) / PlaceOracle.unitsPerDegree)))
            }
        }
        return points
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }
}
