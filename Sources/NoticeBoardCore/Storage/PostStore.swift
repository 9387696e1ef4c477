/// The store of record. A post is acknowledged only after the store has committed it.
public protocol PostStore: Sendable {
    /// Commits a new post. With an idempotency key, a retry with the same fingerprint returns the
    /// original post and creates nothing, also when the duplicates race each other; the same key
    /// with another fingerprint throws `StoreError.idempotencyConflict`.
    func create(_ draft: PostDraft, clientHash: String?, idempotency: IdempotencyRequest?) async throws -> CreateOutcome

    /// The post an earlier request with this idempotency key created (as `.replayed`), `nil` if
    /// the key is unused; throws `StoreError.idempotencyConflict` if it came with other content.
    func existingPost(for idempotency: IdempotencyRequest) async throws -> CreateOutcome?

    /// Calls `body` for every visible post with its version, streaming, in no particular order.
    func forEachVisiblePost(_ body: (Post, _ version: Int64) throws -> Void) async throws

    /// Whether the database answers now.
    func isReachable() async -> Bool
}

extension PostStore {
    /// Every visible post, without versions.
    public func forEachVisiblePost(_ body: (Post) throws -> Void) async throws {
        try await forEachVisiblePost { post, _ in try body(post) }
    }
}

public struct IdempotencyRequest: Sendable, Equatable {
    public var key: String
    /// A digest of the request's JSON content.
    public var fingerprint: String

    public init(key: String, fingerprint: String) {
        self.key = key
        self.fingerprint = fingerprint
    }

    /// Validates the `Idempotency-Key` header: 1...200 characters.
    public static func validatedKey(_ key: String) throws(ValidationError) -> String {
        guard (1...200).contains(key.unicodeScalars.count) else {
            throw ValidationError(field: "Idempotency-Key", "must be 1 to 200 characters")
        }
        return key
    }
}

public enum CreateOutcome: Sendable, Equatable {
    case created(Post)
    /// An earlier request with the same idempotency key created this post.
    case replayed(Post)

    public var post: Post {
        switch self {
        case .created(let post), .replayed(let post): post
        }
    }
}

public enum StoreError: Error, Sendable, Equatable {
    case idempotencyConflict
    /// The database cannot be reached or failed; the request may be retried.
    case unavailable(String)
    /// PostgreSQL refused a value (SQLSTATE class 22, "data exception"): the client's input,
    /// not the database, is at fault.
    case invalidInput(String)
    /// The store holds as many of a thing as it keeps (a board's places): nothing was written.
    case limitReached(String)
}
