/// A device's own notes and replies, for "my notes".
extension Board {
    public func posts(madeBy deviceHash: String, limit: Int, before: (createdAt: Int64, id: Int64)?) async throws -> Page<DevicePost> {
        try await deviceHistory().posts(madeBy: deviceHash, limit: limit, before: before)
    }

    public func replies(madeBy deviceHash: String, limit: Int, before: (createdAt: Int64, id: Int64)?) async throws -> Page<DeviceReply> {
        try await deviceHistory().replies(madeBy: deviceHash, limit: limit, before: before)
    }

    private func deviceHistory() throws -> any DeviceHistoryStore {
        guard let history else { throw StoreError.unavailable("this board has no device history store") }
        return history
    }
}
