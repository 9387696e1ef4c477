import Foundation

/// A lower bound on the haversine distance from the viewer to a post, from plain arithmetic on
/// the stored units: `sin x >= x - x³/6` for `x >= 0` bounds both half-angle sines from below,
/// a leaf's smallest `cos φ` bounds the post's, and `asin s >= s`. About 1e-9 below the truth
/// for nearby posts, so the trigonometry is spared for posts that never reach the front.
struct PostDistanceBound {
    /// The viewer in (fractional) 1e-7° units.
    let latUnits: Double
    let lonUnits: Double
    /// `cos φ` of the viewer times a lower bound on `cos φ` of every post within the radius:
    /// they lie in the band of latitudes `radius` allows, and cos falls with |φ|. A post
    /// outside the band may get a bound above its distance, but that distance is beyond the
    /// radius, so the post is never returned either way.
    let cosProduct: Double

    init(lat: Double, lon: Double, cosLat: Double, radius: Double) {
        latUnits = lat * FixedDegrees.unitsPerDegree
        lonUnits = lon * FixedDegrees.unitsPerDegree
        let farthest = min(90, abs(lat) + Geodesy.degrees(radius / Geodesy.earthRadiusMeters) * (1 + 1e-9) + 1e-9)
        let cosBand = max(0, cos(Geodesy.radians(farthest)) * (1 - 1e-12) - 1e-15)
        cosProduct = cosLat * cosBand
    }

    /// `metres` for a run of slots, written to `bounds` from index 0.
    @inline(__always)
    func metres(lat: [Int32], lon: [Int32], slots: Range<Int>, into bounds: inout [Double]) {
        lat.withUnsafeBufferPointer { lat in
            lon.withUnsafeBufferPointer { lon in
                bounds.withUnsafeMutableBufferPointer { bounds in
                    let lat = UnsafeBufferPointer(rebasing: lat[slots]), lon = UnsafeBufferPointer(rebasing: lon[slots])
                    for j in 0..<slots.count { bounds[j] = metres(lat: lat[j], lon: lon[j]) }
                }
            }
        }
    }

    @inline(__always)
    func metres(lat postLat: Int32, lon postLon: Int32) -> Double {
        let halfAnglePerUnit = Double.pi / 360 / FixedDegrees.unitsPerDegree
        let halfCircle = 180 * FixedDegrees.unitsPerDegree
        let halfPhi = abs(Double(postLat) - latUnits) * halfAnglePerUnit
        let dLon = abs(Double(postLon) - lonUnits)
        // The shorter way round, as a min rather than a branch, which would often be mispredicted.
        let halfLambda = min(dLon, 2 * halfCircle - dLon) * halfAnglePerUnit
        let sinPhi = halfPhi * (1 - halfPhi * halfPhi * (1.0 / 6))
        let sinLambda = halfLambda * (1 - halfLambda * halfLambda * (1.0 / 6))
        let a = sinPhi * sinPhi + cosProduct * sinLambda * sinLambda
        // The relative margin covers rounding in this and in the exact formula; folded into
        // the diameter, it costs no multiplication of its own.
        let diameterLessMargin = 2 * Geodesy.earthRadiusMeters * (1 - 1e-9)
        return diameterLessMargin * a.squareRoot() - 1e-6
    }
}
