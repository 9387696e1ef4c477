import Hummingbird

/// A record's id as a path names it (`/posts/{id}`): a positive 64-bit integer.
struct PathID: LosslessStringConvertible {
    let value: Int64

    init?(_ text: String) {
        guard let value = Int64(text), value > 0 else { return nil }
        self.value = value
    }

    var description: String { String(value) }
}

/// A path whose `{id}` is not a positive integer: it names no record, so `ErrorTranslator`
/// answers as for an unknown one (404 naming `what`, or 405 on a path another route names literally).
struct MalformedPathID: Error {
    let what: String
}

extension RequestContext {
    /// The path's `{id}`, read the one way every route reads it.
    func pathID(naming what: String) throws -> Int64 {
        do {
            return try parameters.require("id", as: PathID.self).value
        } catch {
            throw MalformedPathID(what: what)
        }
    }
}
