/// Posts stored column-wise by slot: coordinates as doubles (distances are computed from the
/// stored values, exactly), heading as a double with NaN for "none", floor with a sentinel,
/// and the post as a single-precision unit vector: a cheap lower bound on its distance that
/// spares the trigonometry for candidates that never reach the front. 56 bytes a post;
/// freed slots are reused.
struct PostColumns: Sendable {
    static let noFloor = Int16.min

    private(set) var lat: [Double] = []
    private(set) var lon: [Double] = []
    private(set) var id: [Int64] = []
    private(set) var createdAt: [Int64] = []
    private(set) var heading: [Double] = []
    private(set) var tag: [TagID] = []
    private(set) var floor: [Int16] = []
    /// x, y, z of each post's unit vector, three floats a slot.
    private(set) var vector: [Float] = []
    private var freeSlots: [Int32] = []

    mutating func reserveCapacity(_ count: Int) {
        lat.reserveCapacity(count)
        lon.reserveCapacity(count)
        id.reserveCapacity(count)
        createdAt.reserveCapacity(count)
        heading.reserveCapacity(count)
        tag.reserveCapacity(count)
        floor.reserveCapacity(count)
        vector.reserveCapacity(3 * count)
    }

    var slotCount: Int { id.count }

    mutating func append(_ post: IndexedPost) -> Int32 {
        append(post, vector: UnitVector(lat: post.lat, lon: post.lon))
    }

    /// The same, with the post's unit vector already computed (the bulk build has them).
    mutating func append(_ post: IndexedPost, vector v: UnitVector) -> Int32 {
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
        vector.append(Float(v.x))
        vector.append(Float(v.y))
        vector.append(Float(v.z))
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
        let v = UnitVector(lat: post.lat, lon: post.lon)
        (vector[3 * i], vector[3 * i + 1], vector[3 * i + 2]) = (Float(v.x), Float(v.y), Float(v.z))
    }

    /// The filter's tag, time and floor tests on a slot, without building the post.
    @inline(__always)
    func passesAttributes(_ i: Int, _ filter: PostFilter) -> Bool {
        if let tags = filter.tags, !tags.contains(tag[i]) { return false }
        if let from = filter.createdFrom, createdAt[i] < from { return false }
        if let before = filter.createdBefore, createdAt[i] >= before { return false }
        if let wanted = filter.floor, floor[i] != wanted { return false }
        return true
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
            + tag.capacity * MemoryLayout<TagID>.stride + floor.capacity * 2 + vector.capacity * 4 + freeSlots.capacity * 4
    }
}
