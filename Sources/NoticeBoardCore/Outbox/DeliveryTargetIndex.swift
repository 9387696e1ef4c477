import GeoIndex

/// Every webhook's and push subscription's interest, in memory: the targets of a new note are
/// found through a `CircleGrid` (circles: nearly every target), a `BoxGrid` (boxes) and an
/// `AreaGrid` (circles and boxes too large for the others), places through the few slugs anyone
/// listens to, and those of a reply through its note's device, so matching costs what the
/// matches cost, not the number of targets. Each instance keeps its own, in step with the
/// store's log of target changes.
public struct DeliveryTargetIndex: Sendable {
    private var interests: [DeliveryInterest?] = []
    /// What a candidate of the areas' grid is first judged by, in plain values (no reference
    /// counting on the hot path).
    private var slots: [Slot] = []
    /// The circles of the areas' grid, whose own test costs a few multiplications, not a haversine.
    private var areaCircles: [Int32: CircleTest] = [:]
    private var handles: [DeliveryTarget: Int32] = [:]
    private var freeHandles: [Int32] = []
    private var circles = CircleGrid()
    private var boxes = BoxGrid()
    private var grid = AreaGrid()
    private var byPlace: [String: Set<Int32>] = [:]
    private var byDevice: [String: Set<Int32>] = [:]
    /// A number for every tag any interest named, for the circles' masks (never forgotten: a
    /// number only ever stands for one tag).
    private var tagNumbers: [String: Int] = [:]

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
        case .area(.circle(let lat, let lon, let radius), let tags):
            if let key = CircleKey.key(interest.target, tagged: !tags.isEmpty),
                circles.insert(handle, lat: lat, lon: lon, radius: radius, key: key, since: interest.createdAt, mask: mask(listeningTo: tags))
            {
                break
            }
            areaCircles[handle] = CircleTest(lat: lat, lon: lon, radius: radius)
            slots[Int(handle)].isCircle = true
            grid.insert(handle, box: AreaGrid.box(aroundCircle: lat, lon: lon, radius: radius))
        case .area(.box(let box), let tags):
            if let key = CircleKey.key(interest.target, tagged: !tags.isEmpty),
                boxes.insert(handle, box: box, key: key, since: interest.createdAt, mask: mask(listeningTo: tags))
            {
                break
            }
            grid.insert(handle, box: box)
        case .replies(let device): byDevice[device, default: []].insert(handle)
        }
    }

    public mutating func remove(_ target: DeliveryTarget) {
        guard let handle = handles.removeValue(forKey: target), let interest = interests[Int(handle)] else { return }
        switch interest.listening {
        case .area(.place(let slug), _):
            byPlace[slug]?.remove(handle)
            if byPlace[slug]?.isEmpty == true { byPlace[slug] = nil }
        case .area(.circle(let lat, let lon, let radius), _):
            if !circles.remove(handle) {
                areaCircles[handle] = nil
                grid.remove(handle, box: AreaGrid.box(aroundCircle: lat, lon: lon, radius: radius))
            }
        case .area(.box(let box), _):
            if !boxes.remove(handle, box: box) { grid.remove(handle, box: box) }
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
        let mask = mask(of: post.tag)
        let circleKeys = circles.matches(lat: post.lat, lon: post.lon, time: post.createdAt, mask: mask)
        let boxKeys = boxes.matches(lat: post.lat, lon: post.lon, time: post.createdAt, mask: mask)
        // With more tags than mask bits, two tags may share a bit: a tagged match is then checked.
        let sharedBits = tagNumbers.count > CircleKey.tagBits
        var found = [DeliveryTarget](unsafeUninitializedCapacity: circleKeys.count + boxKeys.count) { buffer, count in
            for keys in [circleKeys, boxKeys] {
                for key in keys where !sharedBits || names(key, tag: post.tag) {
                    buffer.initializeElement(at: count, to: CircleKey.target(key))
                    count += 1
                }
            }
        }
        let point = UnitVector(lat: post.lat, lon: post.lon)
        let consider = { (handle: Int32) in
            let slot = slots[Int(handle)]
            guard slot.createdAt <= post.createdAt else { return }
            if slot.isCircle, let circle = areaCircles[handle] {
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

    /// Whether a match names the note's tag: an untagged one does, a tagged one if its tags do.
    private func names(_ key: Int64, tag: String) -> Bool {
        guard CircleKey.isTagged(key), let handle = handles[CircleKey.target(key)],
            case .area(_, let tags)? = interests[Int(handle)]?.listening
        else { return true }
        return tags.contains(tag)
    }

    /// The subscriptions told of a reply: those of the note's device, when someone else replied.
    public func targets(forReply reply: Reply, on post: Post) -> [DeliveryTarget] {
        guard !reply.byAuthor, let device = post.deviceHash, let listeners = byDevice[device] else { return [] }
        return listeners.compactMap { handle in
            guard let interest = interests[Int(handle)], interest.createdAt <= reply.createdAt else { return nil }
            return interest.target
        }
    }

    /// An area's mask: every bit for all tags, else its tags' bits.
    private mutating func mask(listeningTo tags: [String]) -> UInt64 {
        guard !tags.isEmpty else { return .max }
        var mask: UInt64 = 0
        for tag in tags {
            let number = tagNumbers[tag] ?? tagNumbers.count
            tagNumbers[tag] = number
            mask |= 1 << UInt64(number % CircleKey.tagBits)
        }
        return mask
    }

    /// A note's mask: its tag's bit, or the one bit no tagged area has for a tag none names.
    private func mask(of tag: String) -> UInt64 {
        tagNumbers[tag].map { 1 << UInt64($0 % CircleKey.tagBits) } ?? 1 << UInt64(CircleKey.tagBits)
    }

    /// A handle's hot fields on the areas' grid: its target, when it was made, whether it
    /// names tags and whether it is a circle (in `areaCircles`). A free handle's `createdAt`
    /// admits nothing.
    struct Slot: Sendable {
        var target: DeliveryTarget
        var createdAt: Int64
        var tagged: Bool
        var isCircle = false

        static let free = Slot(target: .webhook(0), createdAt: .max, tagged: false)

        init(target: DeliveryTarget, createdAt: Int64, tagged: Bool) {
            (self.target, self.createdAt, self.tagged) = (target, createdAt, tagged)
        }

        init(_ interest: DeliveryInterest) {
            var tagged = false
            if case .area(_, let tags) = interest.listening { tagged = !tags.isEmpty }
            self.init(target: interest.target, createdAt: interest.createdAt, tagged: tagged)
        }
    }
}

extension DeliveryTargetIndex {
    /// Every way the circles' or the boxes' grid disagrees with itself; empty when sound (the tests ask after
    /// every kind of change).
    public func invariantViolations() -> [String] { circles.invariantViolations() + boxes.invariantViolations() }
}
