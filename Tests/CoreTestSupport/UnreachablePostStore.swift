import NoticeBoardCore

/// A post store that holds nothing and is never reached: for boards whose tests only apply
/// changes (reconcile, load from memory) and must fail loudly if they ever write.
public struct UnreachablePostStore: PostStore {
    public init() {}

    public func create(_ draft: PostDraft, clientHash: String?, idempotency: IdempotencyRequest?) async throws -> CreateOutcome {
        throw StoreError.unavailable("no store")
    }

    public func existingPost(for idempotency: IdempotencyRequest) async throws -> CreateOutcome? { nil }

    public func forEachVisiblePost(_ body: (Post, Int64) throws -> Void) async throws {}

    public func isReachable() async -> Bool { false }
}
