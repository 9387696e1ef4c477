/// Posts stored column-wise by slot: coordinates as doubles (distances are computed from the
/// stored values, exactly), heading as a double with NaN for "none", floor with a sentinel.
/// 44 bytes a post; freed slots are reused.
struct PostColumns: Sendable {
    static let noFloor = Int16.min

    private(set) var lat: [Double] = []
    private(set) var lon: [Double] = []
    private(set) var id: [Int64] = []
    private(set) var createdAt: [Int64] = []
    private(set) var heading: [Double] = []
    private(set) var tag: [TagID] = []
    private(set) var floor: [Int16] = []
    private var freeSlots: [Int32] = []

    var slotCount: Int { id.count }

    mutating func append(_ post: IndexedPost) -> Int32 {
        if let slot = freeSlots.popLast() {
            write(post, at: Int(slot))
            return slot
        }
        lat.append(post.lat)
        lon.append(post.lon)
        id.append(post.id)
        createdAt.append(post.createdAt)
        heading.append(post.heading ?? .nan)
        tag.append(post.tag)
        floor.append(post.floor ?? Self.noFloor)
        return Int32(id.count - 1)
    }

    mutating func free(_ slot: Int32) {
        id[Int(slot)] = -1
        freeSlots.append(slot)
    }

    private mutating func write(_ post: IndexedPost, at i: Int) {
        lat[i] = post.lat
        lon[i] = post.lon
        id[i] = post.id
        createdAt[i] = post.createdAt
        heading[i] = post.heading ?? .nan
        tag[i] = post.tag
        floor[i] = post.floor ?? Self.noFloor
    }

    @inlinable
    func post(at slot: Int32) -> IndexedPost {
        let i = Int(slot)
        return IndexedPost(
            id: id[i], lat: lat[i], lon: lon[i], heading: heading[i].isNaN ? nil : heading[i], tag: tag[i],
            createdAt: createdAt[i], floor: floor[i] == Self.noFloor ? nil : floor[i])
    }

    /// Bytes held by the columns (capacity, not just count).
    var bytes: Int {
        lat.capacity * 8 + lon.capacity * 8 + id.capacity * 8 + createdAt.capacity * 8 + heading.capacity * 8
            + tag.capacity * MemoryLayout<TagID>.stride + floor.capacity * 2 + freeSlots.capacity * 4
    }
}
