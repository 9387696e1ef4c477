import NoticeBoardCore

extension Board {
    /// Answers from the index (and the places read with it) wait for the first load: before it,
    /// counts would be zero and known places unknown, which a client would take as the truth.
    func requireLoaded() throws {
        guard isLoaded else { throw APIError.unavailable("the index is still loading; retry shortly") }
    }
}
