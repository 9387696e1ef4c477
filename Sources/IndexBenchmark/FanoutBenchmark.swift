import Foundation
import GeoIndex
import BoardTestSupport
import NoticeBoardCore

/// `noticeboard-bench fanout SUBSCRIPTIONS WEBHOOKS POSTS [OUT_DIR]`: the outbox's target index
/// at scale. Push subscriptions (circles of 100 m to 5 km, nine in ten over one city, the rest
/// anywhere) and webhooks (circles up to 50 km and boxes up to 2°) are filed in a
/// `DeliveryTargetIndex`; posts (four in five in the city) are matched one by one. Prints the
/// build time, resident bytes a target, matching time a post (median, p99, max) and matches a
/// post, and checks the index against a brute-force scan on a sample. With OUT_DIR, writes the
/// subscriptions and posts as CSV for the same match in PostGIS (scripts/bench-fanout).
func runFanoutBenchmark(_ arguments: [String]) {
    guard arguments.count >= 5, let subscriptionCount = Int(arguments[2]), let webhookCount = Int(arguments[3]),
        let postCount = Int(arguments[4])
    else {
        print("usage: noticeboard-bench fanout SUBSCRIPTIONS WEBHOOKS POSTS [OUT_DIR]")
        exit(2)
    }
    let clock = ContinuousClock()
    func microseconds(_ d: Duration) -> Double { (Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18) * 1e6 }
    var random = SeededGenerator(seed: 36)
    let city = (lat: 22.30, lon: 114.17)
    func place(cityShare: Double) -> (lat: Double, lon: Double) {
        if random.uniform(0, 1) < cityShare {
            return (city.lat + random.uniform(-0.25, 0.25), city.lon + random.uniform(-0.25, 0.25))
        }
        return (random.uniform(-80, 80), random.uniform(-180, 180))
    }
    let tags = ["food", "events", "lost", "sports", "art"]
    var interests: [DeliveryInterest] = []
    interests.reserveCapacity(subscriptionCount + webhookCount)
    for id in 0..<subscriptionCount {
        let at = place(cityShare: 0.9)
        let radius = exp(random.uniform(log(100), log(5000)))
        let tagged = random.uniform(0, 1) < 0.1 ? [tags[Int(random.next() % 5)]] : []
        interests.append(
            DeliveryInterest(target: .subscription(Int64(id + 1)), listening: .area(.circle(lat: at.lat, lon: at.lon, radius: radius), tags: tagged), createdAt: 0))
    }
    for id in 0..<webhookCount {
        let at = place(cityShare: 0.5)
        let area: DeliveryArea
        if id % 2 == 0 {
            area = .circle(lat: at.lat, lon: at.lon, radius: exp(random.uniform(log(1000), log(50_000))))
        } else {
            let half = random.uniform(0.005, 1)
            var west = at.lon - half, east = at.lon + half
            if west < -180 { west += 360 }
            if east > 180 { east -= 360 }
            area = .box(GeoBox(west: west, south: max(-90, at.lat - half), east: east, north: min(90, at.lat + half)))
        }
        interests.append(DeliveryInterest(target: .webhook(Int64(id + 1)), listening: .area(area, tags: []), createdAt: 0))
    }
    let posts: [Post] = (0..<postCount).map { id in
        let at = place(cityShare: 0.8)
        return Post(
            id: Int64(id + 1), lat: at.lat, lon: at.lon, heading: nil, message: "m", tag: tags[Int(random.next() % 5)], createdAt: 1,
            accuracy: nil, floor: nil, beacon: nil)
    }

    let residentBefore = residentBytes()
    let buildStart = clock.now
    let index = DeliveryTargetIndex(interests)
    let buildSeconds = microseconds(clock.now - buildStart) / 1e6
    let residentAfter = residentBytes()
    let places = PlaceDirectory.empty

    // Warm up, then time each post's match on its own.
    for post in posts.prefix(1000) { _ = index.targets(for: post, places: places) }
    var times: [Double] = []
    var cpuTimes: [Double] = []
    times.reserveCapacity(posts.count)
    cpuTimes.reserveCapacity(posts.count)
    var matches = 0
    for post in posts {
        let cpuStart = threadCPUMicroseconds()
        let start = clock.now
        let found = index.targets(for: post, places: places)
        times.append(microseconds(clock.now - start))
        cpuTimes.append(threadCPUMicroseconds() - cpuStart)
        matches += found.count
    }
    times.sort()
    cpuTimes.sort()
    func percentile(_ p: Double, of times: [Double]) -> Double { times[min(times.count - 1, Int(Double(times.count) * p))] }
    func percentile(_ p: Double) -> Double { percentile(p, of: times) }

    // The index against a scan of every interest, on a sample of posts.
    var checked = 0
    for post in posts.prefix(200) {
        let expected = Set(interests.filter { interest in
            guard case .area(let area, let tags) = interest.listening else { return false }
            return (tags.isEmpty || tags.contains(post.tag)) && area.contains(lat: post.lat, lon: post.lon, floor: nil, places: places)
        }.map(\.target))
        let got = index.targets(for: post, places: places)
        precondition(Set(got) == expected && got.count == expected.count, "the index disagrees with the scan for post \(post.id)")
        checked += 1
    }

    print("targets: \(subscriptionCount) push subscriptions + \(webhookCount) webhooks; posts: \(postCount)")
    print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores\n")
    print("| measure | value |")
    print("|---|---|")
    print("| build | \(String(format: "%.2f", buildSeconds)) s |")
    print("| resident bytes a target | \(String(format: "%.0f", Double(residentAfter - residentBefore) / Double(max(1, interests.count)))) |")
    print("| matching a post: median / p99 / max | \(String(format: "%.1f / %.1f / %.1f", percentile(0.5), percentile(0.99), times.last ?? 0)) µs |")
    print("| the same on the thread's CPU clock (time the machine's other work took excluded): median / p99 | \(String(format: "%.1f / %.1f", percentile(0.5, of: cpuTimes), percentile(0.99, of: cpuTimes))) µs |")
    print("| matches a post (mean) | \(String(format: "%.1f", Double(matches) / Double(max(1, posts.count)))) |")
    print("| checked against a scan | \(checked) posts, all equal |")

    if arguments.count > 5 {
        let directory = arguments[5]
        var subscriptions = "id,lat,lon,radius\n"
        for interest in interests {
            guard case .subscription(let id) = interest.target, case .area(.circle(let lat, let lon, let radius), _) = interest.listening else { continue }
            subscriptions += "\(id),\(lat),\(lon),\(radius)\n"
        }
        var postRows = "id,lat,lon\n"
        for post in posts { postRows += "\(post.id),\(post.lat),\(post.lon)\n" }
        _ = FileManager.default.createFile(atPath: directory + "/subscriptions.csv", contents: Data(subscriptions.utf8))
        _ = FileManager.default.createFile(atPath: directory + "/posts.csv", contents: Data(postRows.utf8))
        // The same match on subscriptions alone (tags aside), for PostGIS beside it.
        var subscriptionTimes: [Double] = []
        var subscriptionCPUTimes: [Double] = []
        let onlySubscriptions = DeliveryTargetIndex(interests.compactMap { interest -> DeliveryInterest? in
            guard case .subscription = interest.target, case .area(let area, _) = interest.listening else { return nil }
            var untagged = interest
            untagged.listening = .area(area, tags: [])
            return untagged
        })
        var subscriptionMatches = 0
        for post in posts {
            let cpuStart = threadCPUMicroseconds()
            let start = clock.now
            subscriptionMatches += onlySubscriptions.targets(for: post, places: places).count
            subscriptionTimes.append(microseconds(clock.now - start))
            subscriptionCPUTimes.append(threadCPUMicroseconds() - cpuStart)
        }
        subscriptionTimes.sort()
        subscriptionCPUTimes.sort()
        let median = subscriptionTimes[subscriptionTimes.count / 2], p99 = subscriptionTimes[Int(Double(subscriptionTimes.count) * 0.99)]
        print("| subscriptions only, no tags (as PostGIS is asked): median / p99 | \(String(format: "%.1f / %.1f", median, p99)) µs, \(subscriptionMatches) matches |")
        print("| the same on the thread's CPU clock: median / p99 | \(String(format: "%.1f / %.1f", percentile(0.5, of: subscriptionCPUTimes), percentile(0.99, of: subscriptionCPUTimes))) µs |")
    }
}

/// This thread's CPU time in microseconds: a match's cost without the time other processes
/// took the core meanwhile, which on a shared machine decides the wall clock's tail.
func threadCPUMicroseconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) * 1e6 + Double(spec.tv_nsec) / 1e3
}

/// Resident set size from /proc (Linux), in bytes.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}
