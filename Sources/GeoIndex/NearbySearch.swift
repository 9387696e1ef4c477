import Foundation

/// A nearby query as the index sees it: already validated, tags interned, times in milliseconds.
public struct NearbySearch: Sendable {
    public enum Order: Sendable, Equatable {
        /// Ascending distance, ties by ascending id.
        case distance
        /// Descending `createdAt`, ties by descending id.
        case newest
        /// Descending `PopularScore` at the instant, ties by descending id.
        case popular(at: Int64)
    }

    /// The viewer's field of view: posts whose bearing is within `fov / 2` of `facing` pass, and
    /// so does every post within `accuracy` metres whatever its bearing.
    public struct ViewCone: Sendable, Equatable {
        public var facing: Double
        public var fov: Double
        public var accuracy: Double
        public init(facing: Double, fov: Double, accuracy: Double) {
            self.facing = facing
            self.fov = fov
            self.accuracy = accuracy
        }
    }

    /// Keeps posts whose own heading is within `tolerance` of `heading`; posts without one pass.
    public struct HeadingFilter: Sendable, Equatable {
        public var heading: Double
        public var tolerance: Double
        public init(heading: Double, tolerance: Double) {
            self.heading = heading
            self.tolerance = tolerance
        }
    }

    public var lat: Double
    public var lon: Double
    public var radius: Double
    public var cone: ViewCone?
    public var headingFilter: HeadingFilter?
    public var filter: PostFilter
    public var order: Order
    /// Resume strictly after this position of the ordering.
    public var after: NearbyPosition?
    public var limit: Int

    public init(
        lat: Double, lon: Double, radius: Double, cone: ViewCone? = nil, headingFilter: HeadingFilter? = nil,
        filter: PostFilter = .all, order: Order = .distance, after: NearbyPosition? = nil, limit: Int = 50
    ) {
        self.lat = lat
        self.lon = lon
        self.radius = radius
        self.cone = cone
        self.headingFilter = headingFilter
        self.filter = filter
        self.order = order
        self.after = after
        self.limit = limit
    }
}

/// A place in a nearby ordering, used as a paging cursor.
public enum NearbyPosition: Sendable, Equatable {
    case distance(Double, id: Int64)
    case newest(createdAt: Int64, id: Int64)
    case popular(score: Double, id: Int64)
}

/// One post found by a nearby query.
public struct NearbyHit: Sendable, Equatable {
    public var id: Int64
    public var distance: Double
    public var bearing: Double
    public var createdAt: Int64
    /// The popular score, when the search orders by it (0 otherwise).
    public var score: Double
    /// Where the R-tree holds the post (`RTreeIndex.post(atSlot:)`), valid until the index
    /// changes; -1 from other indexes. Not part of a hit's identity.
    public var slot: Int32 = -1

    public static func == (a: NearbyHit, b: NearbyHit) -> Bool {
        a.id == b.id && a.distance == b.distance && a.bearing == b.bearing && a.createdAt == b.createdAt && a.score == b.score
    }

    public init(id: Int64, distance: Double, bearing: Double, createdAt: Int64, score: Double = 0) {
        self.id = id
        self.distance = distance
        self.bearing = bearing
        self.createdAt = createdAt
        self.score = score
    }

    public func position(for order: NearbySearch.Order) -> NearbyPosition {
        switch order {
        case .distance: .distance(distance, id: id)
        case .newest: .newest(createdAt: createdAt, id: id)
        case .popular: .popular(score: score, id: id)
        }
    }

    /// Whether this hit comes strictly after `position` in the given order.
    @inlinable
    public func comes(after position: NearbyPosition) -> Bool {
        switch position {
        case .distance(let d, let id): distance > d || (distance == d && self.id > id)
        case .newest(let t, let id): createdAt < t || (createdAt == t && self.id < id)
        case .popular(let s, let id): PopularScore.comes(score: score, id: self.id, after: s, id)
        }
    }

    @inlinable
    public static func precedes(_ a: NearbyHit, _ b: NearbyHit, in order: NearbySearch.Order) -> Bool {
        switch order {
        case .distance: a.distance < b.distance || (a.distance == b.distance && a.id < b.id)
        case .newest: a.createdAt > b.createdAt || (a.createdAt == b.createdAt && a.id > b.id)
        case .popular: PopularScore.comes(score: b.score, id: b.id, after: a.score, a.id)
        }
    }
}

extension NearbySearch {
    /// The exact test of one post against everything but paging.
    @inlinable
    public func hit(for post: IndexedPost) -> NearbyHit? {
        hit(for: post, viewer: ViewerTrigonometry(lat: lat))
    }

    /// The same, with the viewer's latitude terms computed once per query: the results are
    /// bit-identical to `Geodesy.distance` and `Geodesy.bearing`, which evaluate the same terms.
    @inlinable
    public func hit(for post: IndexedPost, viewer: ViewerTrigonometry) -> NearbyHit? {
        guard filter.matches(post) else { return nil }
        guard var found = hit(id: post.id, lat: post.lat, lon: post.lon, heading: post.heading, createdAt: post.createdAt, viewer: viewer)
        else { return nil }
        if case .popular(let instant) = order { found.score = PopularScore.score(likes: post.likes, createdAt: post.createdAt, at: instant) }
        return found
    }

    /// Everything but the attribute filter (tag, time, floor), which the caller has applied.
    @inlinable
    public func hit(id: Int64, lat postLat: Double, lon postLon: Double, heading: Double?, createdAt: Int64, viewer: ViewerTrigonometry)
        -> NearbyHit?
    {
        if let headingFilter, let heading, Geodesy.angleDifference(heading, headingFilter.heading) > headingFilter.tolerance {
            return nil
        }
        let phi2 = Geodesy.radians(postLat)
        let (sinPhi2, cosPhi2) = Geodesy.sinCos(phi2)
        let dPhi = Geodesy.radians(postLat - lat), dLambda = Geodesy.radians(postLon - lon)
        let sinHalfPhi = sin(dPhi / 2), sinHalfLambda = sin(dLambda / 2)
        let a = sinHalfPhi * sinHalfPhi + viewer.cosPhi * cosPhi2 * sinHalfLambda * sinHalfLambda
        let distance = 2 * Geodesy.earthRadiusMeters * asin(min(1, sqrt(max(0, a))))
        guard distance <= radius else { return nil }
        let (sinLambda, cosLambda) = Geodesy.sinCos(dLambda)
        let y = sinLambda * cosPhi2
        let x = viewer.cosPhi * sinPhi2 - viewer.sinPhi * cosPhi2 * cosLambda
        let bearing = Geodesy.normalizedDegrees(Geodesy.degrees(atan2(y, x)))
        if let cone, distance > cone.accuracy, Geodesy.angleDifference(bearing, cone.facing) > cone.fov / 2 {
            return nil
        }
        return NearbyHit(id: id, distance: distance, bearing: bearing, createdAt: createdAt)
    }
}

/// A viewer's latitude terms, shared by every distance and bearing of one query.
public struct ViewerTrigonometry: Sendable {
    public let sinPhi: Double
    public let cosPhi: Double

    @inlinable
    public init(lat: Double) {
        let phi = Geodesy.radians(lat)
        sinPhi = sin(phi)
        cosPhi = cos(phi)
    }
}
