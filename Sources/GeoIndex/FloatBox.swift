/// A box around unit vectors in single precision, its corners rounded outwards so that it
/// still holds every vector of the exact box; small enough to be stored inline in the parent
/// node beside its siblings, so a node's children are tested from a few contiguous cache lines.
struct FloatBox: Sendable, Equatable {
    var minX = Float.infinity, minY = Float.infinity, minZ = Float.infinity
    var maxX = -Float.infinity, maxY = -Float.infinity, maxZ = -Float.infinity

    init() {}

    init(_ box: VectorBox) {
        (minX, minY, minZ) = (Self.down(box.minX), Self.down(box.minY), Self.down(box.minZ))
        (maxX, maxY, maxZ) = (Self.up(box.maxX), Self.up(box.maxY), Self.up(box.maxZ))
    }

    init(_ v: UnitVector) {
        var box = VectorBox()
        box.add(v)
        self.init(box)
    }

    /// The largest float not above `x`.
    static func down(_ x: Double) -> Float {
        let f = Float(x)
        return Double(f) > x ? f.nextDown : f
    }

    /// The smallest float not below `x`.
    static func up(_ x: Double) -> Float {
        let f = Float(x)
        return Double(f) < x ? f.nextUp : f
    }

    var isEmpty: Bool { minX > maxX }

    mutating func add(_ b: FloatBox) {
        minX = Swift.min(minX, b.minX); maxX = Swift.max(maxX, b.maxX)
        minY = Swift.min(minY, b.minY); maxY = Swift.max(maxY, b.maxY)
        minZ = Swift.min(minZ, b.minZ); maxZ = Swift.max(maxZ, b.maxZ)
    }

    func union(_ b: FloatBox) -> FloatBox {
        var u = self
        u.add(b)
        return u
    }

    /// Whether every vector of the exact box lies in this one.
    func contains(_ b: VectorBox) -> Bool {
        b.isEmpty
            || (Double(minX) <= b.minX && Double(minY) <= b.minY && Double(minZ) <= b.minZ && Double(maxX) >= b.maxX
                && Double(maxY) >= b.maxY && Double(maxZ) >= b.maxZ)
    }

    /// The squared distance from a point to the box, in single precision: within about 1e-7
    /// of the exact value (callers subtract a margin that covers it).
    @inline(__always)
    func squaredDistance(_ x: Float, _ y: Float, _ z: Float) -> Float {
        let dx = x < minX ? minX - x : (x > maxX ? x - maxX : 0)
        let dy = y < minY ? minY - y : (y > maxY ? y - maxY : 0)
        let dz = z < minZ ? minZ - z : (z > maxZ ? z - maxZ : 0)
        return dx * dx + dy * dy + dz * dz
    }

    /// The sum of the extents: the insertion cost of the R-tree.
    var margin: Double { isEmpty ? 0 : Double(maxX - minX) + Double(maxY - minY) + Double(maxZ - minZ) }

    var centre: UnitVector {
        UnitVector(x: (Double(minX) + Double(maxX)) / 2, y: (Double(minY) + Double(maxY)) / 2, z: (Double(minZ) + Double(maxZ)) / 2)
    }
}
