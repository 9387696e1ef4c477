import Foundation
import IndexIntrinsics

/// Spherical-earth formulas of the contract: haversine distance and initial great-circle bearing
/// on a sphere of radius 6 371 008.8 m, and a wrap-around-safe angle difference.
public enum Geodesy {
    public static let earthRadiusMeters = 6_371_008.8

    @inlinable
    public static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }

    @inlinable
    public static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

    /// Haversine distance in metres.
    @inlinable
    public static func distance(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let phi1 = radians(lat1), phi2 = radians(lat2)
        let dPhi = radians(lat2 - lat1), dLambda = radians(lon2 - lon1)
        let sinHalfPhi = sin(dPhi / 2), sinHalfLambda = sin(dLambda / 2)
        let a = sinHalfPhi * sinHalfPhi + cos(phi1) * cos(phi2) * sinHalfLambda * sinHalfLambda
        return 2 * earthRadiusMeters * asin(min(1, sqrt(max(0, a))))
    }

    /// Initial great-circle bearing from point 1 to point 2, in `[0, 360)`.
    @inlinable
    public static func bearing(lat1: Double, lon1: Double, lat2: Double, lon2: Double) -> Double {
        let phi1 = radians(lat1), phi2 = radians(lat2)
        let dLambda = radians(lon2 - lon1)
        let y = sin(dLambda) * cos(phi2)
        let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda)
        return normalizedDegrees(degrees(atan2(y, x)))
    }

    /// The sine and cosine of one angle (radians) in one call: the C library's `sincos` shares
    /// one argument reduction and returns the very values `sin` and `cos` return.
    @inlinable
    public static func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
        var sine = 0.0, cosine = 0.0
        index_sincos(x, &sine, &cosine)
        return (sine, cosine)
    }

    /// Maps any finite angle into `[0, 360)`.
    @inlinable
    public static func normalizedDegrees(_ angle: Double) -> Double {
        // fmod returns an angle inside (-360, 360) unchanged, so only others pay for the call
        // (a bearing from atan2 never does).
        var a = abs(angle) < 360 ? angle : angle.truncatingRemainder(dividingBy: 360)
        if a < 0 { a += 360 }
        // -1e-17 + 360 rounds to 360: fold it back to 0.
        return a >= 360 ? 0 : a
    }

    /// `d(a, b) = min(|a-b| mod 360, 360 - |a-b| mod 360)`.
    @inlinable
    public static func angleDifference(_ a: Double, _ b: Double) -> Double {
        let raw = abs(a - b)
        let d = raw < 360 ? raw : raw.truncatingRemainder(dividingBy: 360)
        return min(d, 360 - d)
    }
}
