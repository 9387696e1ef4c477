/// The registry of record.
public protocol BeaconStore: Sendable {
    func beacon(_ reference: BeaconReference) async throws -> Beacon?
    /// Every registered beacon, ordered by uuid, major, minor (a building has hundreds, not millions).
    func all() async throws -> [Beacon]
    /// Creates or moves a beacon (audited as `beacon_put`); true when it was created.
    func put(_ beacon: Beacon, actor: String) async throws -> Bool
    /// Deletes a beacon (audited as `beacon_delete`); false when there was none.
    func delete(_ reference: BeaconReference, actor: String) async throws -> Bool
}
