/// A place's area: a ring of straight edges in longitude/latitude, held in whole 1e-7° units
/// (`FixedDegrees`, as posts are) so that every inside/outside decision is exact integer
/// arithmetic: a post exactly on an edge or a vertex is inside, always.
///
/// Longitudes are unwrapped: consecutive vertices more than 180° apart are joined across the
/// antimeridian, so a ring around the date line is one shape running past ±180, and a point is
/// tested at its longitude and at that longitude ±360°.
public final class PlaceShape: Sendable, Equatable {
    public enum Relation: Sendable, Equatable {
        case outside, inside, straddles
    }

    /// The ring's vertices, unwrapped, without the closing repeat.
    let xs: [Int64]
    let ys: [Int64]
    let minX: Int64, maxX: Int64, minY: Int64, maxY: Int64
    /// Edges by horizontal strip: a point or a box meets only the edges of its strips.
    let strips: EdgeStrips
    /// Edges in a tree of boxes: whether a box meets any edge.
    let hierarchy: EdgeHierarchy

    /// The vertices as stored (each rounded to 1e-7°), longitudes in [-180, 180].
    public let vertices: [(lon: Double, lat: Double)]

    init(vertices: [(lon: Double, lat: Double)], xs: [Int64], ys: [Int64]) {
        self.vertices = vertices
        self.xs = xs
        self.ys = ys
        (minX, maxX) = (xs.min()!, xs.max()!)
        (minY, maxY) = (ys.min()!, ys.max()!)
        strips = EdgeStrips(xs: xs, ys: ys, minY: minY, maxY: maxY)
        hierarchy = EdgeHierarchy(xs: xs, ys: ys)
    }

    public static func == (a: PlaceShape, b: PlaceShape) -> Bool { a === b }

    /// Whether both have the same vertices (a place read again is a new object with the same outline).
    public func hasSameOutline(as other: PlaceShape) -> Bool {
        self === other || (xs == other.xs && ys == other.ys)
    }

    public var vertexCount: Int { xs.count }

    static let fullTurn = Int64(360 * FixedDegrees.unitsPerDegree)

    /// The box around the shape (crossing the antimeridian when the shape does).
    public var box: GeoBox {
        let units = FixedDegrees.unitsPerDegree
        let south = Double(minY) / units, north = Double(maxY) / units
        if maxX - minX >= Self.fullTurn { return GeoBox(west: -180, south: south, east: 180, north: north) }
        return GeoBox(west: Self.normalized(minX), south: south, east: Self.normalized(maxX), north: north)
    }

    private static func normalized(_ x: Int64) -> Double {
        var x = x
        while x > fullTurn / 2 { x -= fullTurn }
        while x < -fullTurn / 2 { x += fullTurn }
        return Double(x) / FixedDegrees.unitsPerDegree
    }

    /// Whether the point is inside or on the boundary.
    public func contains(lat: Double, lon: Double) -> Bool {
        contains(latUnits: FixedDegrees.units(of: lat), lonUnits: FixedDegrees.units(of: lon))
    }

    /// The same, for a point already in whole units (the index's columns).
    @inline(__always)
    public func contains(latUnits y: Int64, lonUnits x: Int64) -> Bool {
        guard y >= minY, y <= maxY else { return false }
        if x >= minX, x <= maxX, containsUnwrapped(x: x, y: y) { return true }
        let east = x + Self.fullTurn, west = x - Self.fullTurn
        if east <= maxX, containsUnwrapped(x: east, y: y) { return true }
        return west >= minX && containsUnwrapped(x: west, y: y)
    }

    /// Crossing number along a ray towards +x; a point on an edge is inside.
    func containsUnwrapped(x: Int64, y: Int64) -> Bool {
        var inside = false
        for e in strips.edges(at: y) {
            let (ax, ay, bx, by) = edge(Int(e))
            if (ay > y) != (by > y) {
                let turn = Self.orientation(ax, ay, bx, by, x, y)
                if turn == 0 { return true }
                if (turn > 0) == (by > ay) { inside.toggle() }
            } else if Self.orientation(ax, ay, bx, by, x, y) == 0, x >= min(ax, bx), x <= max(ax, bx), y >= min(ay, by), y <= max(ay, by) {
                return true
            }
        }
        return inside
    }

    @inline(__always)
    func edge(_ i: Int) -> (Int64, Int64, Int64, Int64) {
        let j = i + 1 == xs.count ? 0 : i + 1
        return (xs[i], ys[i], xs[j], ys[j])
    }

    /// Twice the signed area of the triangle a, b, p: positive when p is left of a→b. Exact:
    /// unwrapped coordinates stay within ±540° (5.4e9 units), so products need 128 bits.
    @inline(__always)
    static func orientation(_ ax: Int64, _ ay: Int64, _ bx: Int64, _ by: Int64, _ px: Int64, _ py: Int64) -> Int {
        let left = Int128(bx - ax) * Int128(py - ay)
        let right = Int128(by - ay) * Int128(px - ax)
        return left == right ? 0 : (left > right ? 1 : -1)
    }
}

/// Which edges cross each horizontal strip of a shape: a post's test reads the few edges of
/// its strip, not the whole ring.
struct EdgeStrips: Sendable {
    let minY: Int64
    let height: Int64
    /// Edge numbers of strip `s` are `items[starts[s]..<starts[s + 1]]`.
    let starts: [Int32]
    let items: [Int32]

    init(xs: [Int64], ys: [Int64], minY: Int64, maxY: Int64) {
        // About two strips a vertex: a strip then holds little more than the edges crossing it.
        let count = max(1, min(2 * xs.count, 2048))
        self.minY = minY
        height = max(1, (maxY - minY) / Int64(count) + 1)
        var buckets = [[Int32]](repeating: [], count: count)
        for i in 0..<xs.count {
            let j = i + 1 == xs.count ? 0 : i + 1
            let low = Int((min(ys[i], ys[j]) - minY) / height), high = Int((max(ys[i], ys[j]) - minY) / height)
            for s in low...min(high, count - 1) { buckets[s].append(Int32(i)) }
        }
        var starts: [Int32] = [0]
        for bucket in buckets { starts.append(starts.last! + Int32(bucket.count)) }
        self.starts = starts
        items = buckets.flatMap { $0 }
    }

    func strip(of y: Int64) -> Int { min(Int((y - minY) / height), starts.count - 2) }

    /// The edges that may meet height `y` (which lies within the shape's latitudes).
    @inline(__always)
    func edges(at y: Int64) -> ArraySlice<Int32> {
        let s = strip(of: y)
        return items[Int(starts[s])..<Int(starts[s + 1])]
    }

}
