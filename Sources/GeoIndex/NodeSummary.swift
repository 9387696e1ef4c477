/// What an R-tree node knows of everything below it: enough to prune by time, tag and floor,
/// to test a lat/lon box, and to count and place a zoomed-out cluster without visiting the
/// posts. The node's box around unit vectors lives in its parent, beside its siblings' boxes.
struct NodeSummary: Sendable {
    var minLat = Double.infinity, maxLat = -Double.infinity
    var minLon = Double.infinity, maxLon = -Double.infinity
    var minTime = Int64.max, maxTime = Int64.min
    /// The floors below (posts without a floor never match a floor filter, so they add none):
    /// a floor query skips every subtree of other floors.
    var minFloor = Int16.max, maxFloor = Int16.min
    /// Bit `tag % 64` for every tag below (a superset test, never a false negative).
    var tagMask: UInt64 = 0
    /// Expiry instants below (`Int64.max` for "never"): a query at an instant skips a subtree
    /// whose posts had all expired by then, and counts one whose posts all outlive it whole.
    var minExpires = Int64.max, maxExpires = Int64.min
    /// At least the most likes of any post below: raised at once by a like, lowered only when
    /// the summary is recomputed, so it is an upper bound the popular walk can stop on.
    var maxLikes: Int32 = 0
    var postCount: Int32 = 0
    var sumX = 0.0, sumY = 0.0, sumZ = 0.0

    var count: Int { Int(postCount) }

    static func tagBit(_ tag: TagID) -> UInt64 { 1 << UInt64(tag % 64) }

    mutating func add(_ post: IndexedPost, _ v: UnitVector) {
        minLat = min(minLat, post.lat); maxLat = max(maxLat, post.lat)
        minLon = min(minLon, post.lon); maxLon = max(maxLon, post.lon)
        minTime = min(minTime, post.createdAt); maxTime = max(maxTime, post.createdAt)
        if let floor = post.floor { (minFloor, maxFloor) = (min(minFloor, floor), max(maxFloor, floor)) }
        tagMask |= Self.tagBit(post.tag)
        let expires = post.expiresAt ?? Int64.max
        (minExpires, maxExpires) = (min(minExpires, expires), max(maxExpires, expires))
        maxLikes = max(maxLikes, post.likes)
        postCount += 1
        sumX += v.x; sumY += v.y; sumZ += v.z
    }

    mutating func add(_ other: NodeSummary) {
        minLat = min(minLat, other.minLat); maxLat = max(maxLat, other.maxLat)
        minLon = min(minLon, other.minLon); maxLon = max(maxLon, other.maxLon)
        minTime = min(minTime, other.minTime); maxTime = max(maxTime, other.maxTime)
        minFloor = min(minFloor, other.minFloor); maxFloor = max(maxFloor, other.maxFloor)
        tagMask |= other.tagMask
        (minExpires, maxExpires) = (min(minExpires, other.minExpires), max(maxExpires, other.maxExpires))
        maxLikes = max(maxLikes, other.maxLikes)
        postCount += other.postCount
        sumX += other.sumX; sumY += other.sumY; sumZ += other.sumZ
    }

    /// Whether any post below may lie in the box (180 and -180 are one meridian).
    func mayIntersect(_ geoBox: GeoBox) -> Bool {
        guard count > 0, maxLat >= geoBox.south, minLat <= geoBox.north else { return false }
        return geoBox.nonCrossingParts.contains { part in
            (maxLon >= part.west && minLon <= part.east) || (maxLon >= 180 && part.west <= -180)
                || (minLon <= -180 && part.east >= 180)
        }
    }

    /// Whether every post below lies in the box.
    func isInside(_ geoBox: GeoBox) -> Bool {
        guard minLat >= geoBox.south, maxLat <= geoBox.north else { return false }
        return geoBox.nonCrossingParts.contains { minLon >= $0.west && maxLon <= $0.east }
    }

    /// Whether some post below may pass the filter's tags and time range.
    func mayMatch(_ filter: PostFilter, tagMask wanted: UInt64?) -> Bool {
        if let wanted, tagMask & wanted == 0 { return false }
        if let from = filter.createdFrom, maxTime < from { return false }
        if let before = filter.createdBefore, minTime >= before { return false }
        if let floor = filter.floor, floor < minFloor || floor > maxFloor { return false }
        if let floors = filter.floors, floors.upperBound < minFloor || floors.lowerBound > maxFloor { return false }
        if let instant = filter.aliveAt, maxExpires <= instant { return false }
        return true
    }

    /// How the posts below lie against a place (`outside` for an empty node).
    func relation(to place: PlaceShape) -> PlaceShape.Relation {
        guard count > 0 else { return .outside }
        return place.relation(south: minLat, north: maxLat, west: minLon, east: maxLon)
    }

    /// Whether every post below passes the filter (then the node counts as a whole).
    /// `tagBitsAreExact`: fewer than 65 tags exist, so each mask bit stands for one tag.
    /// The place is not looked at: the caller knows whether the node lies wholly inside it.
    func allMatch(_ filter: PostFilter, tagBitsAreExact: Bool) -> Bool {
        if filter.floor != nil || filter.floors != nil { return false }
        if let tags = filter.tags {
            guard tagBitsAreExact, tagMask & ~Self.mask(of: tags) == 0 else { return false }
        }
        if let from = filter.createdFrom, minTime < from { return false }
        if let before = filter.createdBefore, maxTime >= before { return false }
        if let instant = filter.aliveAt, minExpires <= instant { return false }
        return true
    }

    static func mask(of tags: Set<TagID>) -> UInt64 { tags.reduce(0) { $0 | tagBit($1) } }
}
