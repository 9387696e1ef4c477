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
        // The box as named, and one turn east and west of it: a shape past ±180 meets one of them.
        let here = shiftedRelation(0, x0, x1, y0, y1)
        if here == .inside { return .inside }
        let east = shiftedRelation(Self.fullTurn, x0, x1, y0, y1)
        if east == .inside { return .inside }
        let west = shiftedRelation(-Self.fullTurn, x0, x1, y0, y1)
        if west == .inside { return .inside }
        return here == .straddles || east == .straddles || west == .straddles ? .straddles : .outside
    }

    @inline(__always)
    private func shiftedRelation(_ shift: Int64, _ x0: Int64, _ x1: Int64, _ y0: Int64, _ y1: Int64) -> Relation {
        let left = x0 + shift, right = x1 + shift
        guard right >= minX, left <= maxX else { return .outside }
        return unwrappedRelation(x0: left, x1: right, y0: y0, y1: y1)
    }

    /// One copy of the box against the unwrapped ring: it straddles when an edge meets it;
    /// otherwise it lies wholly on one side, which its corner tells.
    func unwrappedRelation(x0: Int64, x1: Int64, y0: Int64, y1: Int64) -> Relation {
        let meets = hierarchy.anyEdge(overlapping: x0, y0, x1, y1) { e in
            let (ax, ay, bx, by) = edge(e)
            return Self.segment(ax, ay, bx, by, meetsBox: x0, y0, x1, y1)
        }
        if meets { return .straddles }
        // No edge meets the box, so no edge touches the corner: the crossing number is exact.
        if x0 < minX || x0 > maxX || y0 < minY || y0 > maxY { return .outside }
        return containsUnwrapped(x: x0, y: y0) ? .inside : .outside
    }

    /// Whether a segment meets a closed box: their boxes overlap and the segment's line does
    /// not leave all four corners strictly on one side.
    @inline(__always)
    static func segment(_ ax: Int64, _ ay: Int64, _ bx: Int64, _ by: Int64, meetsBox x0: Int64, _ y0: Int64, _ x1: Int64, _ y1: Int64) -> Bool {
        guard max(ax, bx) >= x0, min(ax, bx) <= x1, max(ay, by) >= y0, min(ay, by) <= y1 else { return false }
        let first = orientation(ax, ay, bx, by, x0, y0)
        if first == 0 { return true }
        return orientation(ax, ay, bx, by, x1, y0) != first || orientation(ax, ay, bx, by, x0, y1) != first
            || orientation(ax, ay, bx, by, x1, y1) != first
    }
}
