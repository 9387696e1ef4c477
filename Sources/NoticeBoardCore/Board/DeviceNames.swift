/// Devices' hashes, interned for the rows that name them and forgotten when the last such row
/// goes: a board where devices come and go holds only the devices of posts it still has.
struct DeviceNames: Sendable {
    private var idsByName: [String: UInt32] = [:]
    private var names: [String?] = []
    private var uses: [UInt32] = []
    private var freeIDs: [UInt32] = []

    /// The name's id, counted once more.
    mutating func retain(_ name: String) -> UInt32 {
        if let id = idsByName[name] {
            uses[Int(id)] += 1
            return id
        }
        let id: UInt32
        if let free = freeIDs.popLast() {
            id = free
            names[Int(id)] = name
            uses[Int(id)] = 1
        } else {
            id = UInt32(names.count)
            names.append(name)
            uses.append(1)
        }
        idsByName[name] = id
        return id
    }

    /// One row less names the id; the last one forgets it.
    mutating func release(_ id: UInt32) {
        let index = Int(id)
        uses[index] -= 1
        guard uses[index] == 0, let name = names[index] else { return }
        idsByName[name] = nil
        names[index] = nil
        freeIDs.append(id)
    }

    func name(of id: UInt32) -> String { names[Int(id)] ?? "" }

    /// The id of a name some row holds, `nil` for any other.
    func id(of name: String) -> UInt32? { idsByName[name] }

    /// Devices named by at least one row.
    var count: Int { idsByName.count }
}
