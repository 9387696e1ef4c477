/// Posts stored column-wise by slot. The R-tree gives each leaf a block of slots, so a leaf's
/// posts sit side by side in every column and a query reads a few cache lines per column,
/// not one scattered line per post. Latitude, longitude and heading are whole 1e-7° units
/// (`FixedDegrees`: the doubles they stand for are exactly the stored ones), heading
/// `noHeading` for "none", floor with a sentinel: a few dozen bytes a slot, nothing else per post.
struct PostColumns: Sendable {
    static let noFloor = Int16.min
    static let noHeading = UInt32.max

    private(set) var lat: [Int32] = []
    private(set) var lon: [Int32] = []
    private(set) var id: [Int64] = []
    private(set) var createdAt: [Int64] = []
    private(set) var heading: [UInt32] = []
    private(set) var tag: [TagID] = []
    private(set) var floor: [Int16] = []
    /// `Int64.max` for a post that never expires.
    private(set) var expiresAt: [Int64] = []
    private(set) var likes: [Int32] = []
    private(set) var payload: [Int32] = []

    var slotCount: Int { id.count }

    mutating func reserveCapacity(_ count: Int) {
        lat.reserveCapacity(count)
        lon.reserveCapacity(count)
        id.reserveCapacity(count)
        createdAt.reserveCapacity(count)
        heading.reserveCapacity(count)
        tag.reserveCapacity(count)
        floor.reserveCapacity(count)
        expiresAt.reserveCapacity(count)
        likes.reserveCapacity(count)
        payload.reserveCapacity(count)
    }

    /// Adds `count` empty slots at the end (a new leaf's block).
    mutating func grow(by count: Int) {
        lat.append(contentsOf: repeatElement(0, count: count))
        lon.append(contentsOf: repeatElement(0, count: count))
        id.append(contentsOf: repeatElement(-1, count: count))
        createdAt.append(contentsOf: repeatElement(0, count: count))
        heading.append(contentsOf: repeatElement(Self.noHeading, count: count))
        tag.append(contentsOf: repeatElement(0, count: count))
        floor.append(contentsOf: repeatElement(Self.noFloor, count: count))
        expiresAt.append(contentsOf: repeatElement(Int64.max, count: count))
        likes.append(contentsOf: repeatElement(0, count: count))
        payload.append(contentsOf: repeatElement(-1, count: count))
    }

    mutating func write(_ post: IndexedPost, at i: Int) {
        lat[i] = Int32(FixedDegrees.units(of: post.lat))
        lon[i] = Int32(FixedDegrees.units(of: post.lon))
        id[i] = post.id
        createdAt[i] = post.createdAt
        heading[i] = post.heading.map { UInt32(FixedDegrees.units(of: $0)) } ?? Self.noHeading
        tag[i] = post.tag
        floor[i] = post.floor ?? Self.noFloor
        expiresAt[i] = post.expiresAt ?? Int64.max
        likes[i] = post.likes
        payload[i] = post.payload
    }

    mutating func setLikes(_ count: Int32, at i: Int) { likes[i] = count }

    /// Copies slot `from` over slot `to` (the leaf compacting after a removal).
    mutating func move(from: Int, to: Int) {
        lat[to] = lat[from]
        lon[to] = lon[from]
        id[to] = id[from]
        createdAt[to] = createdAt[from]
        heading[to] = heading[from]
        tag[to] = tag[from]
        floor[to] = floor[from]
        expiresAt[to] = expiresAt[from]
        likes[to] = likes[from]
        payload[to] = payload[from]
    }

    mutating func clear(_ i: Int) { id[i] = -1 }

    /// The filter's tag, time and floor tests on a slot, without building the post (not the place).
    @inline(__always)
    func passesAttributes(_ i: Int, _ filter: PostFilter) -> Bool {
        if let tags = filter.tags, !tags.contains(tag[i]) { return false }
        if let from = filter.createdFrom, createdAt[i] < from { return false }
        if let before = filter.createdBefore, createdAt[i] >= before { return false }
        if let wanted = filter.floor, floor[i] != wanted { return false }
        if let floors = filter.floors, floor[i] == Self.noFloor || !floors.contains(floor[i]) { return false }
        if let instant = filter.aliveAt, expiresAt[i] <= instant { return false }
        return true
    }

    /// The place test on a slot (the caller skips it inside a node wholly in the place).
    @inline(__always)
    func isInside(_ i: Int, _ place: PlaceShape) -> Bool {
        place.contains(latUnits: Int64(lat[i]), lonUnits: Int64(lon[i]))
    }

    @inline(__always)
    func latitude(_ i: Int) -> Double { FixedDegrees.degrees(units: Int64(lat[i])) }

    @inline(__always)
    func longitude(_ i: Int) -> Double { FixedDegrees.degrees(units: Int64(lon[i])) }

    @inline(__always)
    func headingDegrees(_ i: Int) -> Double? {
        heading[i] == Self.noHeading ? nil : FixedDegrees.degrees(units: Int64(heading[i]))
    }

    /// Starts loading every column line of slot `i` (`post(at:)` reads them all).
    @inline(__always)
    func prefetchPost(at i: Int) {
        lat.prefetch(from: i)
        lon.prefetch(from: i)
        id.prefetch(from: i)
        createdAt.prefetch(from: i)
        heading.prefetch(from: i)
        tag.prefetch(from: i)
        floor.prefetch(from: i)
        expiresAt.prefetch(from: i)
        likes.prefetch(from: i)
        payload.prefetch(from: i)
    }

    func post(at i: Int) -> IndexedPost {
        IndexedPost(
            id: id[i], lat: latitude(i), lon: longitude(i), heading: headingDegrees(i), tag: tag[i],
            createdAt: createdAt[i], floor: floor[i] == Self.noFloor ? nil : floor[i],
            expiresAt: expiresAt[i] == Int64.max ? nil : expiresAt[i], likes: likes[i], payload: payload[i])
    }

    /// Bytes held by the columns (capacity, not just count).
    var bytes: Int {
        lat.capacity * 4 + lon.capacity * 4 + id.capacity * 8 + createdAt.capacity * 8 + heading.capacity * 4
            + tag.capacity * MemoryLayout<TagID>.stride + floor.capacity * 2 + expiresAt.capacity * 8 + likes.capacity * 4 + payload.capacity * 4
    }
}

extension IndexedPost {
    /// The post as the columns hold it: coordinates and heading rounded to 1e-7° (a no-op for
    /// posts from the database, which are stored that way).
    var isOnFixedGrid: Bool {
        lat == FixedDegrees.quantized(lat) && lon == FixedDegrees.quantized(lon)
            && (heading.map { $0 == FixedDegrees.quantizedHeading($0) } ?? true)
    }

    var onFixedGrid: IndexedPost {
        var post = self
        post.lat = FixedDegrees.quantized(lat)
        post.lon = FixedDegrees.quantized(lon)
        post.heading = heading.map(FixedDegrees.quantizedHeading)
        return post
    }
}
