/// What a nearby walk works out once per query: the tests a child node and a post must pass
/// to enter the frontier, and a post's exact evaluation when it reaches the front.
struct NearbyWalk {
    let search: NearbySearch
    /// The query's centre on the unit sphere, in the single precision of the boxes.
    let qx: Float, qy: Float, qz: Float
    let chordLimitSquared: Float
    let coneTest: ConeBoxTest?
    let wantedTags: UInt64?
    let place: PlaceShape?
    let viewer: ViewerTrigonometry
    let postBound: PostDistanceBound
    /// Whether a child node's summary is read: for the filter, the place or the order's key.
    let readsSummaries: Bool

    /// Boxes and the centre are single precision: 3 m covers their rounding (~2e-7 of the unit
    /// sphere, about 1.3 m).
    static let nodeMargin = 3.0

    init(_ search: NearbySearch, orderKeysNodesBySummary: Bool) {
        self.search = search
        let centre = UnitVector(lat: search.lat, lon: search.lon)
        (qx, qy, qz) = (Float(centre.x), Float(centre.y), Float(centre.z))
        let chordLimit = Float((search.radius + Self.nodeMargin) / Geodesy.earthRadiusMeters * (1 + 1e-6))
        chordLimitSquared = chordLimit * chordLimit
        coneTest = search.cone.flatMap { ConeBoxTest($0, lat: search.lat, lon: search.lon) }
        wantedTags = search.filter.tags.map(NodeSummary.mask(of:))
        place = search.filter.place
        viewer = ViewerTrigonometry(lat: search.lat)
        postBound = PostDistanceBound(lat: search.lat, lon: search.lon, cosLat: viewer.cosPhi, radius: search.radius)
        let filter = search.filter
        let filterNeedsSummaries = filter.tags != nil || filter.createdFrom != nil || filter.createdBefore != nil
            || filter.floor != nil || filter.floors != nil || filter.aliveAt != nil
        readsSummaries = filterNeedsSummaries || place != nil || orderKeysNodesBySummary
    }

    /// A lower bound on the distance to anything in the box, `nil` when nothing in it can be a hit.
    @inline(__always)
    func bound(of box: FloatBox) -> Double? {
        // A chord is never longer than its arc, so R·chord bounds a distance from below; most
        // children fail on the squared chord, before any square root.
        let squared = box.squaredDistance(qx, qy, qz)
        guard squared <= chordLimitSquared else { return nil }
        let bound = Geodesy.earthRadiusMeters * Double(squared).squareRoot() - Self.nodeMargin
        // Beyond the accuracy disc, a child wholly outside the cone holds no hit.
        if let coneTest, bound > coneTest.accuracy, coneTest.excludes(box) { return nil }
        return bound
    }

    /// Whether a child node lies wholly in the place (`true`) or not (`false`), `nil` when its
    /// summary rules out every post below it.
    @inline(__always)
    func placeRelation(_ summary: NodeSummary, parentInPlace: Bool) -> Bool? {
        guard summary.mayMatch(search.filter, tagMask: wantedTags) else { return nil }
        return RTreeIndex.placeRelation(summary, place, parentInPlace: parentInPlace)
    }

    /// Whether the post in a slot, `bound` metres away at least, passes the radius, the filter and the place.
    @inline(__always)
    func admits(slot i: Int, bound: Double, inPlace: Bool, columns: PostColumns) -> Bool {
        guard bound <= search.radius, columns.passesAttributes(i, search.filter) else { return false }
        if let place, !inPlace, !columns.isInside(i, place) { return false }
        return true
    }

    /// The post in a slot evaluated exactly (distance, bearing, cone, heading), `nil` if it fails.
    @inline(__always)
    func hit(slot i: Int, columns: PostColumns) -> NearbyHit? {
        // The heading column is read only when a filter needs it: one cache line less.
        guard
            var hit = search.hit(
                id: columns.id[i], lat: columns.latitude(i), lon: columns.longitude(i),
                heading: search.headingFilter == nil ? nil : columns.headingDegrees(i),
                createdAt: columns.createdAt[i], viewer: viewer)
        else { return nil }
        hit.slot = Int32(i)
        return hit
    }
}
