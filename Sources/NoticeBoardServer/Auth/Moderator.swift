/// A moderator whose bearer token was verified for this request.
public struct Moderator: Sendable {
    public var name: String
    /// The token it came with, so a logout can revoke exactly that session.
    var token: String
}
