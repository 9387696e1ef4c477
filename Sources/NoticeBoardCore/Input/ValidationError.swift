/// A client error in one input, or in the request as a whole when `field` is `nil`.
public struct ValidationError: Error, Sendable, Equatable {
    public var field: String?
    public var message: String

    public init(field: String?, _ message: String) {
        self.field = field
        self.message = message
    }
}
