/// Angles stored as whole multiples of 1e-7° (about 1 cm on the ground): what the board keeps
/// for latitude, longitude and heading (the contract promises at least 1e-7° precision).
///
/// Exact both ways: a stored value is the double nearest to `units / 10^7`, which is what the
/// division below returns (it is correctly rounded, and 10^7 is exact), and `units(of:)` gives
/// the units back for it, so the index can keep four-byte integers and still compute with the
/// very doubles held in the database.
public enum FixedDegrees {
    public static let unitsPerDegree = 10_000_000.0

    /// The nearest whole number of units.
    @inlinable
    public static func units(of degrees: Double) -> Int64 { Int64((degrees * unitsPerDegree).rounded()) }

    @inlinable
    public static func degrees(units: Int64) -> Double { Double(units) / unitsPerDegree }

    /// The value as stored: rounded to the nearest 1e-7°.
    @inlinable
    public static func quantized(_ degrees: Double) -> Double { Self.degrees(units: units(of: degrees)) }

    /// A heading as stored: rounded, and 360 (the rounding of 359.99999996) folded to 0.
    @inlinable
    public static func quantizedHeading(_ degrees: Double) -> Double {
        let units = units(of: degrees)
        return units >= 360 * Int64(unitsPerDegree) ? 0 : Self.degrees(units: units)
    }
}
