/// Why a ring is not a place's shape.
public struct PlaceShapeError: Error, Sendable, Equatable {
    public var reason: String

    init(_ reason: String) { self.reason = reason }
}

extension PlaceShape {
    public static let vertexLimit = 1000

    /// A shape from a ring of `[lon, lat]` vertices (a repeated first vertex at the end is
    /// allowed), rounded to 1e-7° as posts are. Refused: fewer than 3 or more than 1000
    /// vertices, coordinates out of range, a ring that crosses or touches itself (or folds
    /// back on an edge, or has no area), one that encloses a pole, or one wider than the globe.
    /// `checkedBefore` skips the quadratic self-crossing test for rings read back from the
    /// store, which were validated when written.
    public static func validated(_ ring: [(lon: Double, lat: Double)], checkedBefore: Bool = false) throws(PlaceShapeError) -> PlaceShape {
        var ring = ring
        if ring.count > 3, let first = ring.first, let last = ring.last, first == last { ring.removeLast() }
        guard ring.count >= 3 else { throw PlaceShapeError("must have at least 3 vertices") }
        guard ring.count <= vertexLimit else { throw PlaceShapeError("must have at most \(vertexLimit) vertices") }
        var lonUnits: [Int64] = [], latUnits: [Int64] = []
        for (i, vertex) in ring.enumerated() {
            guard vertex.lon.isFinite, vertex.lat.isFinite, (-180...180).contains(vertex.lon), (-90...90).contains(vertex.lat) else {
                throw PlaceShapeError("vertex \(i) must be [lon, lat] with lon in [-180, 180] and lat in [-90, 90]")
            }
            lonUnits.append(FixedDegrees.units(of: vertex.lon))
            latUnits.append(FixedDegrees.units(of: vertex.lat))
        }
        // Unwrap: each step takes the short way round, more than 180° meaning across ±180.
        var xs = [lonUnits[0]], ys = [latUnits[0]]
        for i in 1..<lonUnits.count {
            let x = xs.last! + shortStep(from: lonUnits[i - 1], to: lonUnits[i])
            if x == xs.last!, latUnits[i] == ys.last! { continue }
            xs.append(x)
            ys.append(latUnits[i])
        }
        let closing = xs.last! + shortStep(from: lonUnits.last!, to: lonUnits[0])
        guard closing - xs[0] == 0 else { throw PlaceShapeError("must not enclose a pole") }
        if xs.count > 1, xs.last! == xs[0], ys.last! == ys[0] { xs.removeLast(); ys.removeLast() }
        guard xs.count >= 3 else { throw PlaceShapeError("must have at least 3 distinct vertices") }
        guard xs.max()! - xs.min()! < fullTurn else { throw PlaceShapeError("must not wrap around the globe") }
        if !checkedBefore, let crossing = firstSelfContact(xs, ys) {
            throw PlaceShapeError("must not cross itself (edges \(crossing.0) and \(crossing.1) meet)")
        }
        let stored = zip(lonUnits, latUnits).map { (lon: FixedDegrees.degrees(units: $0), lat: FixedDegrees.degrees(units: $1)) }
        return PlaceShape(vertices: stored, xs: xs, ys: ys)
    }

    private static func shortStep(from a: Int64, to b: Int64) -> Int64 {
        var step = b - a
        if step > fullTurn / 2 { step -= fullTurn }
        if step < -fullTurn / 2 { step += fullTurn }
        return step
    }

    /// The first pair of edges that meet other than at the vertex two neighbours share, or
    /// neighbours that fold back over each other. Quadratic, run once per stored place.
    static func firstSelfContact(_ xs: [Int64], _ ys: [Int64]) -> (Int, Int)? {
        let n = xs.count
        func point(_ i: Int) -> (Int64, Int64) { (xs[i % n], ys[i % n]) }
        for i in 0..<n {
            let (ax, ay) = point(i), (bx, by) = point(i + 1), (cx, cy) = point(i + 2)
            // Neighbours share b; they overlap when c lies back along b→a.
            if orientation(ax, ay, bx, by, cx, cy) == 0, Int128(ax - bx) * Int128(cx - bx) + Int128(ay - by) * Int128(cy - by) > 0 {
                return (i, (i + 1) % n)
            }
            let (minAX, maxAX) = (min(ax, bx), max(ax, bx)), (minAY, maxAY) = (min(ay, by), max(ay, by))
            for j in stride(from: i + 2, to: n, by: 1) where !(i == 0 && j == n - 1) {
                let (px, py) = point(j), (qx, qy) = point(j + 1)
                guard max(px, qx) >= minAX, min(px, qx) <= maxAX, max(py, qy) >= minAY, min(py, qy) <= maxAY else { continue }
                if segmentsMeet(ax, ay, bx, by, px, py, qx, qy) { return (i, j) }
            }
        }
        return nil
    }

    /// Whether two closed segments share a point (touching counts).
    static func segmentsMeet(_ ax: Int64, _ ay: Int64, _ bx: Int64, _ by: Int64, _ cx: Int64, _ cy: Int64, _ dx: Int64, _ dy: Int64) -> Bool {
        let d1 = orientation(cx, cy, dx, dy, ax, ay), d2 = orientation(cx, cy, dx, dy, bx, by)
        let d3 = orientation(ax, ay, bx, by, cx, cy), d4 = orientation(ax, ay, bx, by, dx, dy)
        if d1 * d2 < 0, d3 * d4 < 0 { return true }
        func onSegment(_ px: Int64, _ py: Int64, _ qx: Int64, _ qy: Int64, _ rx: Int64, _ ry: Int64) -> Bool {
            rx >= min(px, qx) && rx <= max(px, qx) && ry >= min(py, qy) && ry <= max(py, qy)
        }
        if d1 == 0, onSegment(cx, cy, dx, dy, ax, ay) { return true }
        if d2 == 0, onSegment(cx, cy, dx, dy, bx, by) { return true }
        if d3 == 0, onSegment(ax, ay, bx, by, cx, cy) { return true }
        if d4 == 0, onSegment(ax, ay, bx, by, dx, dy) { return true }
        return false
    }
}
