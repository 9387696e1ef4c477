/// The order a nearby walk returns posts in, given to it as a type (the way tidwall's rtree
/// takes its distance), so each order's walk is compiled on its own with no branch on the order.
protocol NearbyOrder {
    /// Whether a node enters the frontier keyed by its summary (time, score), not its distance bound.
    static var keysNodesBySummary: Bool { get }
    /// Whether a candidate post is keyed by a lower bound, and goes back into the frontier once exact.
    static var keysCandidatesByBound: Bool { get }
    /// A child node's key, `nil` when it can hold nothing after the cursor.
    func nodeKey(_ summary: NodeSummary, bound: Double) -> Double?
    /// A post's key and tie as it leaves its leaf, `nil` when it comes before the cursor.
    func candidateKey(slot i: Int, bound: Double, columns: PostColumns) -> (key: Double, tie: Int64)?
    /// Fills in what the order ranks an exact hit by beyond its distance and time.
    func rank(_ hit: inout NearbyHit, slot i: Int, columns: PostColumns)
}

/// Nearest first: everything is keyed by a lower bound on its distance.
struct DistanceOrder: NearbyOrder {
    static var keysNodesBySummary: Bool { false }
    static var keysCandidatesByBound: Bool { true }

    @inline(__always)
    func nodeKey(_ summary: NodeSummary, bound: Double) -> Double? { bound }

    @inline(__always)
    func candidateKey(slot i: Int, bound: Double, columns: PostColumns) -> (key: Double, tie: Int64)? {
        // Candidates tie by slot: the order they are evaluated in never shows (exact posts tie
        // by id). Their id and time are read when they reach the front: those lines start loading now.
        columns.id.prefetch(from: i)
        columns.createdAt.prefetch(from: i)
        return (bound, Int64(i))
    }

    @inline(__always)
    func rank(_ hit: inout NearbyHit, slot i: Int, columns: PostColumns) {}
}

/// Newest first: a node by the newest time below it, a post by its time, ties by the higher id.
struct NewestOrder: NearbyOrder {
    /// The cursor's time and id.
    let after: (time: Int64, id: Int64)?

    init(after position: NearbyPosition?) {
        after = if case .newest(let time, let id)? = position { (time, id) } else { nil }
    }

    static var keysNodesBySummary: Bool { true }
    static var keysCandidatesByBound: Bool { false }

    @inline(__always)
    func nodeKey(_ summary: NodeSummary, bound: Double) -> Double? {
        if let after, summary.minTime > after.time { return nil }
        return -Double(summary.maxTime)
    }

    @inline(__always)
    func candidateKey(slot i: Int, bound: Double, columns: PostColumns) -> (key: Double, tie: Int64)? {
        let id = columns.id[i], time = columns.createdAt[i]
        if let after, !(time < after.time || (time == after.time && id < after.id)) { return nil }
        return (-Double(time), -id)
    }

    @inline(__always)
    func rank(_ hit: inout NearbyHit, slot i: Int, columns: PostColumns) {}
}

/// Most popular first at an instant: a node by the best score below it, so the walk stops as
/// soon as no unopened node can hold a post scoring above the page's last.
struct PopularOrder: NearbyOrder {
    let instant: Int64
    /// The cursor's score and id.
    let after: (score: Double, id: Int64)?

    init(at instant: Int64, after position: NearbyPosition?) {
        self.instant = instant
        after = if case .popular(let score, let id)? = position { (score, id) } else { nil }
    }

    static var keysNodesBySummary: Bool { true }
    static var keysCandidatesByBound: Bool { false }

    @inline(__always)
    func nodeKey(_ summary: NodeSummary, bound: Double) -> Double? {
        -PopularScore.bound(summary, at: instant)
    }

    @inline(__always)
    func candidateKey(slot i: Int, bound: Double, columns: PostColumns) -> (key: Double, tie: Int64)? {
        let id = columns.id[i]
        let score = PopularScore.score(likes: columns.likes[i], createdAt: columns.createdAt[i], at: instant)
        if let after, !PopularScore.comes(score: score, id: id, after: after.score, after.id) { return nil }
        return (-score, -id)
    }

    @inline(__always)
    func rank(_ hit: inout NearbyHit, slot i: Int, columns: PostColumns) {
        hit.score = PopularScore.score(likes: columns.likes[i], createdAt: hit.createdAt, at: instant)
    }
}
