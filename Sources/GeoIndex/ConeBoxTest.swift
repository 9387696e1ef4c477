import Foundation

/// Tells whether a node's box lies wholly outside a viewer's field-of-view cone, so a cone
/// query skips it without looking at its posts.
///
/// The bearing from the viewer V to a point P is `atan2(E·P, N·P)`, with E and N the unit
/// vectors pointing east and north at V (the contract's bearing formula, written with vectors).
/// For an edge of the cone at bearing θ, `W·P` with `W = cos θ·E − sin θ·N` equals
/// `|p| sin(bearing − θ)`: its sign says on which side of that edge P lies. `W·P` is linear,
/// so its extremes over a box are found per axis, from the box's corners.
struct ConeBoxTest {
    /// The edges at `facing − fov/2` and `facing + fov/2`.
    private let left: UnitVector
    private let right: UnitVector
    /// Whether the cone is wider than a half-plane (then it is the union of the two sides).
    private let reflex: Bool
    /// Boxes closer than this may hold posts inside the accuracy disc, which pass any cone.
    let accuracy: Double
    /// Slack for rounding: the exact bearing is computed differently, so a box is skipped only
    /// when it is clearly outside (about 6 µm on the ground).
    private static let margin = 1e-12

    /// `nil` when the cone cannot exclude anything (a full circle).
    init?(_ cone: NearbySearch.ViewCone, lat: Double, lon: Double) {
        guard cone.fov < 360 else { return nil }
        let phi = Geodesy.radians(lat), lambda = Geodesy.radians(lon)
        let east = UnitVector(x: -sin(lambda), y: cos(lambda), z: 0)
        let north = UnitVector(x: -sin(phi) * cos(lambda), y: -sin(phi) * sin(lambda), z: cos(phi))
        func edge(_ bearing: Double) -> UnitVector {
            let theta = Geodesy.radians(bearing)
            let (c, s) = (cos(theta), sin(theta))
            return UnitVector(x: c * east.x - s * north.x, y: c * east.y - s * north.y, z: c * east.z - s * north.z)
        }
        left = edge(cone.facing - cone.fov / 2)
        right = edge(cone.facing + cone.fov / 2)
        reflex = cone.fov > 180
        accuracy = cone.accuracy
    }

    /// Whether no point of the box has a bearing inside the cone.
    @inline(__always)
    func excludes(_ box: FloatBox) -> Bool {
        // Inside the cone: W_left·P >= 0 (clockwise of the left edge) and W_right·P <= 0
        // (anticlockwise of the right edge); for a reflex cone, either of the two.
        let beforeLeft = Self.maximum(left, box) < -Self.margin
        let afterRight = Self.minimum(right, box) > Self.margin
        return reflex ? (beforeLeft && afterRight) : (beforeLeft || afterRight)
    }

    @inline(__always)
    private static func maximum(_ w: UnitVector, _ b: FloatBox) -> Double {
        max(w.x * Double(b.minX), w.x * Double(b.maxX)) + max(w.y * Double(b.minY), w.y * Double(b.maxY))
            + max(w.z * Double(b.minZ), w.z * Double(b.maxZ))
    }

    @inline(__always)
    private static func minimum(_ w: UnitVector, _ b: FloatBox) -> Double {
        min(w.x * Double(b.minX), w.x * Double(b.maxX)) + min(w.y * Double(b.minY), w.y * Double(b.maxY))
            + min(w.z * Double(b.minZ), w.z * Double(b.maxZ))
    }
}
