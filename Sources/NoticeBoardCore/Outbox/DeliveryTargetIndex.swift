import GeoIndex

/// Every webhook's and push subscription's interest, in memory: the targets of a new note are
/// found through an `AreaGrid` (places through the few slugs anyone listens to) and those of a
/// reply through its note's device, so matching costs what the matches cost, not the number of
/// targets. Each instance keeps its own, in step with the store's log of target changes.
public struct DeliveryTargetIndex: Sendable {
    private var interests: [DeliveryInterest?] = []
    /// What a candidate is first judged by, in plain values (no reference counting on the hot
    /// path); a circle's own test costs a few multiplications, not a haversine.
    private var slots: [Slot] = []
    private var handles: [DeliveryTarget: Int32] = [:]
    private var freeHandles: [Int32] = []
    private var grid = AreaGrid()
    private var byPlace: [String: Set<Int32>] = [:]
    private var byDevice: [String: Set<Int32>] = [:]

    public init() {}

    public init(_ interests: some Sequence<DeliveryInterest>) {
        for interest in interests { upsert(interest) }
    }

    public var count: Int { handles.count }

    /// Adds an interest, or replaces the one its target had.
    public mutating func upsert(_ interest: DeliveryInterest) {
        remove(interest.target)
        let handle: Int32
        let slot = Slot(interest)
        if let free = freeHandles.popLast() {
            handle = free
            interests[Int(handle)] = interest
            slots[Int(handle)] = slot
        } else {
            handle = Int32(interests.count)
            interests.append(interest)
            slots.append(slot)
        }
        handles[interest.target] = handle
        switch interest.listening {
        case .area(.place(let slug), _): byPlace[slug, default: []].insert(handle)
        case .area(let area, _): grid.insert(handle, box: Self.box(of: area)!)
        case .replies(let device): byDevice[device, default: []].insert(handle)
        }
    }

    public mutating func remove(_ target: DeliveryTarget) {
        guard let handle = handles.removeValue(forKey: target), let interest = interests[Int(handle)] else { return }
        switch interest.listening {
        case .area(.place(let slug), _):
            byPlace[slug]?.remove(handle)
            if byPlace[slug]?.isEmpty == true { byPlace[slug] = nil }
        case .area(let area, _): grid.remove(handle, box: Self.box(of: area)!)
        case .replies(let device):
            byDevice[device]?.remove(handle)
            if byDevice[device]?.isEmpty == true { byDevice[device] = nil }
        }
        interests[Int(handle)] = nil
        slots[Int(handle)] = Slot.free
        freeHandles.append(handle)
    }

    /// The targets a note on the board is delivered to: made no later than the note, its area
    /// holding it and its tags (if any) naming the note's tag.
    public func targets(for post: Post, places: PlaceDirectory) -> [DeliveryTarget] {
        var found: [DeliveryTarget] = []
        let point = UnitVector(lat: post.lat, lon: post.lon)
        let consider = { (handle: Int32) in
            let slot = slots[Int(handle)]
            guard slot.createdAt <= post.createdAt else { return }
            if let circle = slot.circle {
                guard circle.contains(point, lat: post.lat, lon: post.lon) else { return }
            } else {
                guard case .area(let area, _)? = interests[Int(handle)]?.listening,
                    area.contains(lat: post.lat, lon: post.lon, floor: post.floor, places: places)
                else { return }
            }
            if slot.tagged {
                guard case .area(_, let tags)? = interests[Int(handle)]?.listening, tags.contains(post.tag) else { return }
            }
            found.append(slot.target)
        }
        grid.forEachCandidate(lat: post.lat, lon: post.lon, consider)
        for (slug, listeners) in byPlace where places.places[slug]?.contains(lat: post.lat, lon: post.lon, floor: post.floor) == true {
            listeners.forEach(consider)
        }
        return found
    }

    /// The subscriptions told of a reply: those of the note's device, when someone else replied.
    public func targets(forReply reply: Reply, on post: Post) -> [DeliveryTarget] {
        guard !reply.byAuthor, let device = post.deviceHash, let listeners = byDevice[device] else { return [] }
        return listeners.compactMap { handle in
            guard let interest = interests[Int(handle)], interest.createdAt <= reply.createdAt else { return nil }
            return interest.target
        }
    }

    /// The box an area is filed under (a place is filed by slug instead).
    static func box(of area: DeliveryArea) -> GeoBox? {
        switch area {
        case .circle(let lat, let lon, let radius): AreaGrid.box(aroundCircle: lat, lon: lon, radius: radius)
        case .box(let box): box
        case .place: nil
        }
    }

    /// A handle's hot fields: its target, when it was made, its circle's test if it is a circle,
    /// and whether it names tags. A free handle's `createdAt` admits nothing.
    struct Slot: Sendable {
        var target: DeliveryTarget
        var createdAt: Int64
        var circle: CircleTest?
        var tagged: Bool

        static let free = Slot(target: .webhook(0), createdAt: .max, circle: nil, tagged: false)

        init(target: DeliveryTarget, createdAt: Int64, circle: CircleTest?, tagged: Bool) {
            (self.target, self.createdAt, self.circle, self.tagged) = (target, createdAt, circle, tagged)
        }

        init(_ interest: DeliveryInterest) {
            var circle: CircleTest?
            var tagged = false
            if case .area(let area, let tags) = interest.listening {
                if case .circle(let lat, let lon, let radius) = area { circle = CircleTest(lat: lat, lon: lon, radius: radius) }
                tagged = !tags.isEmpty
            }
            self.init(target: interest.target, createdAt: interest.createdAt, circle: circle, tagged: tagged)
        }
    }
}
