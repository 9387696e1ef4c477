/// How a box of posts lies against a shape: a walk of the index skips boxes outside, takes
/// boxes inside whole, and tests posts one by one only in boxes that straddle an edge.
extension PlaceShape {
    /// The relation of the box `south...north` × `west...east` (degrees, `west <= east`, as a
    /// node summary holds them) to the shape. `inside` and `outside` are exact; `straddles`
    /// may also be said of a box that touches an edge only at its rim.
    public func relation(south: Double, north: Double, west: Double, east: Double) -> Relation {
        let y0 = FixedDegrees.units(of: south), y1 = FixedDegrees.units(of: north)
        let x0 = FixedDegrees.units(of: west), x1 = FixedDegrees.units(of: east)
        guard y0 <= y1, x0 <= x1, y1 >= minY, y0 <= maxY else { return .outside }
        var relation = Relation.outside
        for shift in [0, Self.fullTurn, -Self.fullTurn] {
            let left = x0 + shift, right = x1 + shift
            guard right >= minX, left <= maxX else { continue }
            switch unwrappedRelation(x0: left, x1: right, y0: y0, y1: y1) {
            case .inside: return .inside
            case .straddles: relation = .straddles
            case .outside: break
            }
        }
        return relation
    }

    /// One copy of the box against the unwrapped ring: it straddles when an edge meets it;
    /// otherwise it lies wholly on one side, which its corner tells.
    func unwrappedRelation(x0: Int64, x1: Int64, y0: Int64, y1: Int64) -> Relation {
        for e in strips.edges(from: y0, through: min(y1, maxY)) {
            let (ax, ay, bx, by) = edge(Int(e))
            if Self.segment(ax, ay, bx, by, meetsBox: x0, y0, x1, y1) { return .straddles }
        }
        // No edge meets the box, so no edge touches the corner: the crossing number is exact.
        if x0 < minX || x0 > maxX || y0 < minY || y0 > maxY { return .outside }
        return containsUnwrapped(x: x0, y: y0) ? .inside : .outside
    }

    /// Whether a segment meets a closed box: their boxes overlap and the segment's line does
    /// not leave all four corners strictly on one side.
    static func segment(_ ax: Int64, _ ay: Int64, _ bx: Int64, _ by: Int64, meetsBox x0: Int64, _ y0: Int64, _ x1: Int64, _ y1: Int64) -> Bool {
        guard max(ax, bx) >= x0, min(ax, bx) <= x1, max(ay, by) >= y0, min(ay, by) <= y1 else { return false }
        let corners = [
            orientation(ax, ay, bx, by, x0, y0), orientation(ax, ay, bx, by, x1, y0),
            orientation(ax, ay, bx, by, x0, y1), orientation(ax, ay, bx, by, x1, y1),
        ]
        return !(corners.allSatisfy { $0 > 0 } || corners.allSatisfy { $0 < 0 })
    }
}
