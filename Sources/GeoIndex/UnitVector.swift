import Foundation

/// A point on the unit sphere. Chord lengths between unit vectors order points exactly as
/// great-circle distances do, and a box around vectors bounds the chord to anything inside it,
/// with no special case at the antimeridian or the poles.
public struct UnitVector: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(lat: Double, lon: Double) {
        let (sinPhi, cosPhi) = Geodesy.sinCos(Geodesy.radians(lat))
        let (sinLambda, cosLambda) = Geodesy.sinCos(Geodesy.radians(lon))
        x = cosPhi * cosLambda
        y = cosPhi * sinLambda
        z = sinPhi
    }
}

/// An axis-aligned box in 3-D around unit vectors, in double precision: node boxes are built
/// with it, then stored (rounded outwards) as `FloatBox`, which the queries test.
public struct VectorBox: Sendable, Equatable {
    public var minX = Double.infinity, minY = Double.infinity, minZ = Double.infinity
    public var maxX = -Double.infinity, maxY = -Double.infinity, maxZ = -Double.infinity

    public init() {}

    public var isEmpty: Bool { minX > maxX }

    @inlinable
    public mutating func add(_ v: UnitVector) {
        minX = Swift.min(minX, v.x); maxX = Swift.max(maxX, v.x)
        minY = Swift.min(minY, v.y); maxY = Swift.max(maxY, v.y)
        minZ = Swift.min(minZ, v.z); maxZ = Swift.max(maxZ, v.z)
    }

    @inlinable
    public mutating func add(_ b: VectorBox) {
        minX = Swift.min(minX, b.minX); maxX = Swift.max(maxX, b.maxX)
        minY = Swift.min(minY, b.minY); maxY = Swift.max(maxY, b.maxY)
        minZ = Swift.min(minZ, b.minZ); maxZ = Swift.max(maxZ, b.maxZ)
    }
}
