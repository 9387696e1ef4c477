/// The beacon registry, through the board: posts and queries placed by a beacon are placed
/// where it is registered now.
extension Board {
    /// A registered beacon, or a 400 on `beacon`.
    public func locate(_ reference: BeaconReference) async throws -> Beacon {
        guard let beacon = try await beacon(reference) else {
            throw ValidationError(field: "beacon", "unknown beacon \(reference)")
        }
        return beacon
    }

    /// A registered beacon, `nil` if there is none.
    public func beacon(_ reference: BeaconReference) async throws -> Beacon? {
        guard let beacons else { return nil }
        return try await beacons.beacon(reference)
    }

    /// Every registered beacon, ordered by uuid, major, minor.
    public func allBeacons() async throws -> [Beacon] {
        try await registry().all()
    }

    /// Registers or moves a beacon; true when it was new.
    public func register(_ beacon: Beacon, by moderator: String) async throws -> Bool {
        try await registry().put(beacon, actor: moderator)
    }

    /// Removes a beacon; false when there was none.
    public func unregister(_ reference: BeaconReference, by moderator: String) async throws -> Bool {
        try await registry().delete(reference, actor: moderator)
    }

    private func registry() throws -> any BeaconStore {
        guard let beacons else { throw StoreError.unavailable("this board has no beacon registry") }
        return beacons
    }
}
