import BoardTestSupport
import Foundation
import GeoIndex
import NoticeBoardCore
import Testing

/// The target index against a scan of every interest, through random upserts and removals:
/// circles of every size (a metre to most of the globe), boxes (across the antimeridian, ending
/// on either of its names, up to the poles, a single point or line, every longitude), centres
/// and posts at the antimeridian, at the poles and on top of each other, posts exactly on and a
/// hair either side of a circle's edge or a box's edge or corner, tags (more of them than the
/// masks have bits, in one run) and the interests' creation instants.
@Suite struct DeliveryTargetIndexOracleTests {
    struct Scenario {
        var interests: [DeliveryTarget: DeliveryInterest] = [:]
        var random: SeededGenerator
        let tags: [String]
        /// Centres several interests and posts share.
        let spots: [(lat: Double, lon: Double)]

        mutating func point() -> (lat: Double, lon: Double) {
            switch Int.random(in: 0..<6, using: &random) {
            case 0: return spots.randomElement(using: &random)!
            case 1:  // a city
                return (22.3 + Double.random(in: -0.2...0.2, using: &random), 114.17 + Double.random(in: -0.2...0.2, using: &random))
            case 2:  // the antimeridian, both of its names included
                let lon = [180, -180, 179.9999, -179.9999, Double.random(in: 179...180, using: &random)].randomElement(using: &random)!
                return (Double.random(in: -60...60, using: &random), lon)
            case 3:  // the poles, on them included
                let lat = [90, -90, 89.9999, -89.99, Double.random(in: 85...90, using: &random)].randomElement(using: &random)!
                return (Bool.random(using: &random) ? lat : -lat, Double.random(in: -180...180, using: &random))
            default: return (Double.random(in: -90...90, using: &random), Double.random(in: -180...180, using: &random))
            }
        }

        mutating func area() -> DeliveryArea {
            let at = point()
            if Int.random(in: 0..<4, using: &random) > 0 {
                let radius = [1, 3, 50, 100, exp(Double.random(in: log(100)...log(5000), using: &random)), 5000, 50_000, 400_000, 3_000_000,
                              15_000_000].randomElement(using: &random)!
                return .circle(lat: at.lat, lon: at.lon, radius: radius)
            }
            let half = [0, 0.001, Double.random(in: 0.001...2, using: &random), 40, 170].randomElement(using: &random)!
            var west = at.lon - half, east = at.lon + half
            if west < -180 { west += 360 }
            if east > 180 { east -= 360 }
            var box = GeoBox(west: west, south: max(-90, at.lat - half), east: east, north: min(90, at.lat + half))
            switch Int.random(in: 0..<8, using: &random) {
            case 0: box.west = [-180, 180].randomElement(using: &random)!  // starting on the antimeridian
            case 1: box.east = [-180, 180].randomElement(using: &random)!  // ending on it
            case 2: box.south = box.north  // a line along a parallel
            case 3: (box.west, box.east) = (-180, 180)  // every longitude
            default: break
            }
            return .box(box)
        }

        mutating func interest(_ target: DeliveryTarget) -> DeliveryInterest {
            let count = [0, 0, 1, 1, 3].randomElement(using: &random)!
            let chosen = (0..<count).map { _ in tags.randomElement(using: &random)! }
            return DeliveryInterest(target: target, listening: .area(area(), tags: Array(Set(chosen))), createdAt: Int64.random(in: 0...100, using: &random))
        }

        /// A post somewhere, or on, just inside or just outside a circle's edge or a box's edge
        /// or corner.
        mutating func post(id: Int64) -> Post {
            var at = point()
            let boxes = interests.values.compactMap { interest -> GeoBox? in
                guard case .area(.box(let box), _) = interest.listening else { return nil }
                return box
            }
            if let box = boxes.randomElement(using: &random), Int.random(in: 0..<3, using: &random) == 0 {
                let nudge = [0, 0, 1e-9, -1e-9].randomElement(using: &random)!
                let lat = [box.south, box.north, Double.random(in: box.south...box.north, using: &random)].randomElement(using: &random)! + nudge
                let lon = [box.west, box.east, box.west - nudge, box.east + nudge].randomElement(using: &random)!
                at = (max(-90, min(90, lat)), lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon)
            }
            let circles = interests.values.compactMap { interest -> (Double, Double, Double)? in
                guard case .area(.circle(let lat, let lon, let radius), _) = interest.listening else { return nil }
                return (lat, lon, radius)
            }
            if let circle = circles.randomElement(using: &random), Int.random(in: 0..<3, using: &random) == 0 {
                let nudge = [0, 0, 1e-9, -1e-9, 1e-6, -1e-6, 0.01, -0.01, 1, -1].randomElement(using: &random)!
                at = Self.destination(lat: circle.0, lon: circle.1, distance: max(0, circle.2 + nudge), bearing: Double.random(in: 0..<360, using: &random))
            }
            // One in ten made before every interest: reaches none of them.
            let createdAt = Int.random(in: 0..<10, using: &random) == 0 ? -1 : Int64.random(in: 0...100, using: &random)
            return Post(
                id: id, lat: at.lat, lon: at.lon, heading: nil, message: "m", tag: tags.randomElement(using: &random)!,
                createdAt: createdAt, accuracy: nil, floor: nil, beacon: nil)
        }

        /// The point `distance` metres from (lat, lon) along `bearing`, on the sphere.
        static func destination(lat: Double, lon: Double, distance: Double, bearing: Double) -> (lat: Double, lon: Double) {
            let phi = lat * .pi / 180, lambda = lon * .pi / 180, theta = bearing * .pi / 180
            let delta = distance / Oracle.earthRadius
            let phi2 = asin(max(-1, min(1, sin(phi) * cos(delta) + cos(phi) * sin(delta) * cos(theta))))
            let lambda2 = lambda + atan2(sin(theta) * sin(delta) * cos(phi), cos(delta) - sin(phi) * sin(phi2))
            var lon2 = lambda2 * 180 / .pi
            while lon2 > 180 { lon2 -= 360 }
            while lon2 < -180 { lon2 += 360 }
            return (max(-90, min(90, phi2 * 180 / .pi)), lon2)
        }

        /// The brute-force answer: every interest's own definition.
        func expected(_ post: Post) -> Set<DeliveryTarget> {
            Set(interests.values.filter { interest in
                guard case .area(let area, let tags) = interest.listening, interest.createdAt <= post.createdAt,
                    tags.isEmpty || tags.contains(post.tag)
                else { return false }
                switch area {
                case .circle(let lat, let lon, let radius): return Oracle.distance(lat, lon, post.lat, post.lon) <= radius
                case .box(let box):
                    guard post.lat >= box.south, post.lat <= box.north else { return false }
                    let lon = post.lon
                    func inside(_ lon: Double) -> Bool { box.west <= box.east ? (lon >= box.west && lon <= box.east) : (lon >= box.west || lon <= box.east) }
                    return inside(lon) || (lon == 180 && inside(-180)) || (lon == -180 && inside(180))
                case .place: return false
                }
            }.map(\.target))
        }
    }

    @Test(arguments: [5, 100]) func matchesEqualAScanThroughUpsertsAndRemovals(tagCount: Int) {
        let seed = SeededGenerator.runSeed()
        print("DeliveryTargetIndexOracleTests seed \(seed), \(tagCount) tags")
        var random = SeededGenerator(seed: seed)
        let spots = (0..<4).map { _ in (lat: Double.random(in: -89...89, using: &random), lon: Double.random(in: -180...180, using: &random)) }
        var scenario = Scenario(random: random, tags: (0..<tagCount).map { "tag\($0)" }, spots: spots)
        var index = DeliveryTargetIndex()
        var nextId: Int64 = 1
        var matched = 0, empty = 0, edges = 0, boxEdges = 0
        for round in 0..<12 {
            // New targets, some replaced (a new area, tags or instant), some removed.
            for _ in 0..<150 {
                let target: DeliveryTarget = Bool.random(using: &scenario.random) ? .subscription(nextId) : .webhook(nextId)
                nextId += 1
                let interest = scenario.interest(target)
                scenario.interests[target] = interest
                index.upsert(interest)
            }
            let existing = Array(scenario.interests.keys)
            for target in existing.shuffled(using: &scenario.random).prefix(40) {
                if Bool.random(using: &scenario.random) {
                    index.remove(target)
                    scenario.interests[target] = nil
                } else {
                    let interest = scenario.interest(target)
                    scenario.interests[target] = interest
                    index.upsert(interest)
                }
            }
            // Removing what is not there changes nothing.
            index.remove(.webhook(Int64(-round - 1)))
            #expect(index.count == scenario.interests.count, "seed \(seed)")
            #expect(index.invariantViolations() == [], "seed \(seed), round \(round)")
            for postNumber in 0..<250 {
                let post = scenario.post(id: Int64(round * 1000 + postNumber))
                let expected = scenario.expected(post)
                let got = index.targets(for: post, places: .empty)
                #expect(got.count == Set(got).count, "a target matched twice: seed \(seed), post \(post)")
                if Set(got) != expected {
                    Issue.record("seed \(seed): post \(post) missed \(expected.subtracting(got)), wrongly got \(Set(got).subtracting(expected))")
                    return
                }
                matched += got.count
                if got.isEmpty { empty += 1 }
                if scenario.interests.values.contains(where: { interest in
                    guard case .area(.circle(let lat, let lon, let radius), _) = interest.listening else { return false }
                    return abs(Oracle.distance(lat, lon, post.lat, post.lon) - radius) < 1e-6
                }) { edges += 1 }
                if scenario.interests.values.contains(where: { interest in
                    guard case .area(.box(let box), _) = interest.listening else { return false }
                    return [box.south, box.north].contains(post.lat) || [box.west, box.east].contains(post.lon)
                }) { boxEdges += 1 }
            }
        }
        // Otherwise the comparison would prove little.
        #expect(matched > 3000, "seed \(seed)")
        #expect(empty > 50, "seed \(seed)")
        #expect(edges > 50, "seed \(seed)")
        #expect(boxEdges > 50, "seed \(seed)")
    }

    /// Every entry of a circle reaching the same cells, removed in every order, leaves nothing.
    @Test func duplicatesComeAndGo() {
        var index = DeliveryTargetIndex()
        let circle = DeliveryArea.circle(lat: 22.3, lon: 114.17, radius: 1000)
        for id in Int64(1)...100 { index.upsert(DeliveryInterest(target: .subscription(id), listening: .area(circle, tags: []), createdAt: 0)) }
        let post = Post(id: 1, lat: 22.3, lon: 114.17, heading: nil, message: "m", tag: "a", createdAt: 0, accuracy: nil, floor: nil, beacon: nil)
        #expect(Set(index.targets(for: post, places: .empty)) == Set((1...100).map { DeliveryTarget.subscription($0) }))
        var random = SeededGenerator(seed: 5)
        for id in (Int64(1)...100).shuffled(using: &random) where id % 3 != 0 { index.remove(.subscription(id)) }
        #expect(index.invariantViolations() == [])
        #expect(Set(index.targets(for: post, places: .empty)) == Set((1...100).filter { $0 % 3 == 0 }.map { DeliveryTarget.subscription($0) }))
        for id in Int64(1)...100 { index.remove(.subscription(id)) }
        #expect(index.invariantViolations() == [])
        #expect(index.targets(for: post, places: .empty).isEmpty)
        #expect(index.count == 0)
    }
}
