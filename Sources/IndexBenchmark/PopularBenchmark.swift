import Foundation
import GeoIndex

/// `BENCH_PROFILE=popular`: nearby in the popular order and as of a past instant, beside the plain
/// query (nearest first), on one tree and the same centres. A like on 5 % of the posts, counts
/// Zipf-distributed (the k-th most liked has about 2000 / k); a quarter of the posts with a
/// lifetime of one to thirty days. Popular is scored at the newest post's time plus a day.
func runPopularBenchmark(posts given: [IndexedPost], queries: [Query], runs: Int) {
    let clock = ContinuousClock()
    func microseconds(_ d: Duration) -> Double { (Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18) * 1e6 }
    var generator = SystemRandomNumberGenerator()
    var posts = given
    let liked = max(1, posts.count / 20)
    for rank in 1...liked {
        let i = Int.random(in: 0..<posts.count, using: &generator)
        posts[i].likes = Int32(max(1, 2000 / rank))
    }
    for i in posts.indices where Int.random(in: 0..<4, using: &generator) == 0 {
        posts[i].expiresAt = posts[i].createdAt + Int64.random(in: 1...30, using: &generator) * 86_400_000
    }
    let tree = RTreeIndex(bulk: posts)
    let newest = posts.map(\.createdAt).max() ?? 0
    let oldest = posts.map(\.createdAt).min() ?? 0
    let now = newest + 86_400_000
    let past = oldest + (newest - oldest) / 2
    print("posts: \(posts.count), liked: \(liked), now: \(now), asOf: \(past)\n")
    print("| query (limit 50) | median µs | p99 µs | × plain (median) | results per query |")
    print("|---|---|---|---|---|")
    let cases: [(String, (Query) -> Int)] = [
        ("plain: nearest first, live now", { q in
            tree.nearby(NearbySearch(lat: q.lat, lon: q.lon, radius: q.radius, filter: PostFilter(aliveAt: now))).count
        }),
        ("popular, now", { q in
            tree.nearby(NearbySearch(lat: q.lat, lon: q.lon, radius: q.radius, filter: PostFilter(createdBefore: now + 1, aliveAt: now), order: .popular(at: now))).count
        }),
        ("nearest first, asOf a year back", { q in
            tree.nearby(NearbySearch(lat: q.lat, lon: q.lon, radius: q.radius, filter: PostFilter(createdBefore: past + 1, aliveAt: past))).count
        }),
        ("popular, asOf a year back", { q in
            tree.nearby(NearbySearch(lat: q.lat, lon: q.lon, radius: q.radius, filter: PostFilter(createdBefore: past + 1, aliveAt: past), order: .popular(at: past))).count
        }),
        ("newest first, now", { q in
            tree.nearby(NearbySearch(lat: q.lat, lon: q.lon, radius: q.radius, filter: PostFilter(aliveAt: now), order: .newest)).count
        }),
    ]
    // Interleaved per query, so every case sees the same machine load.
    var times = Array(repeating: [Double](), count: cases.count)
    var results = Array(repeating: 0, count: cases.count)
    for _ in 0..<runs {
        for q in queries {
            for (k, (_, run)) in cases.enumerated() {
                let start = clock.now
                results[k] += run(q)
                times[k].append(microseconds(clock.now - start))
            }
        }
    }
    let plain = times[0].sorted()[times[0].count / 2]
    for (k, (label, _)) in cases.enumerated() {
        let sorted = times[k].sorted()
        let median = sorted[sorted.count / 2], p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
        print(String(format: "| %@ | %.1f | %.1f | %.2f× | %.1f |", label, median, p99, median / plain, Double(results[k]) / Double(max(1, runs * queries.count))))
    }
}
