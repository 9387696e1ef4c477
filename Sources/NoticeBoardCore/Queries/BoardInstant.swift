/// The instant a query sees the board at: now (notes expired by now are left out), or an
/// `asOf` in the past (also leaving out notes made after it).
public struct BoardInstant: Sendable, Equatable {
    public var milliseconds: Int64
    /// True for an `asOf` the client gave; "now" does not hide a note another instance's
    /// clock stamped a moment ahead.
    public var limitsCreation: Bool

    public init(milliseconds: Int64, limitsCreation: Bool) {
        self.milliseconds = milliseconds
        self.limitsCreation = limitsCreation
    }

    public static func now() -> BoardInstant { BoardInstant(milliseconds: Timestamp.nowMilliseconds(), limitsCreation: false) }
}

extension QueryParameters {
    /// `asOf=<RFC 3339>`: not later than now (400 on `asOf`); absent means now.
    public func asOf(now: Int64 = Timestamp.nowMilliseconds()) throws(ValidationError) -> BoardInstant {
        guard let text = first("asOf") else { return BoardInstant(milliseconds: now, limitsCreation: false) }
        guard let instant = Timestamp.parseTruncatedMilliseconds(text) else {
            throw ValidationError(field: "asOf", "must be an RFC 3339 timestamp such as 2026-11-21T10:00:00.123Z")
        }
        guard instant <= now else { throw ValidationError(field: "asOf", "must not be later than now") }
        return BoardInstant(milliseconds: instant, limitsCreation: true)
    }
}
