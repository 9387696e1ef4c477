// The index benchmark: the anchors' own posts and queries (../shared/bench gen_posts.py and
// gen_queries.py output), against both index structures, in a release build.
//
//   NOTICEBOARD_BENCHMARKS=1 swift run -c release noticeboard-bench POSTS.csv QUERIES.csv [M=2000] [RUNS=5]
//   BENCH_PROFILE=places …: queries narrowed to a place beside the same by its bounding box.
//   BENCH_PROFILE=popular …: nearby in the popular order and as of a past instant beside the plain query.
//   noticeboard-bench fanout SUBSCRIPTIONS WEBHOOKS POSTS [OUT_DIR]: the outbox's target index (FanoutBenchmark.swift).
//   noticeboard-bench compaction POSTS [REMOVED_SHARE]: reads while message texts are compacted (CompactionBenchmark.swift).
//
// Prints markdown tables: build time, insert rate, bytes per post, per-query latency (median,
// mean, p99 of the per-run figures' medians) by radius and filter, and clusters by zoom.

import Foundation
import GeoIndex
import NoticeBoardCore

struct Query {
    var lat: Double
    var lon: Double
    var radius: Double
}

func readCSV(_ path: String) -> [[Substring]] {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
        exit(2)
    }
    // Bytes, not Characters: "\r\n" is one Character, and grapheme breaking is slow.
    return data.split(separator: UInt8(ascii: "\n")).dropFirst().map { line in
        let trimmed = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        return trimmed.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map {
            Substring(decoding: $0, as: UTF8.self)
        }
    }
}

/// The whole run: a function, so its state is local rather than main-actor globals.
func runBenchmark() {
    let arguments = CommandLine.arguments
    if arguments.count > 1, arguments[1] == "fanout" {
        runFanoutBenchmark(arguments)
        return
    }
    guard arguments.count >= 3 else {
        print("usage: noticeboard-bench POSTS.csv QUERIES.csv [M=2000] [RUNS=5]")
        exit(2)
    }
    let queryCount = arguments.count > 3 ? Int(arguments[3])! : 2000
    let runs = arguments.count > 4 ? Int(arguments[4])! : 5
    let clock = ContinuousClock()

    func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }

    var tags = TagInterner()
    var posts: [IndexedPost] = []
    let parseStart = clock.now
    for row in readCSV(arguments[1]) where row.count >= 6 {
        let created = Timestamp.parseCeilingMilliseconds(String(row[5])) ?? 0
        posts.append(
            IndexedPost(
                id: Int64(row[0])!, lat: Double(row[1])!, lon: Double(row[2])!, heading: Double(row[3]),
                tag: tags.intern(String(row[4])), createdAt: created, floor: nil))
    }
    let queries = readCSV(arguments[2]).prefix(queryCount).map { Query(lat: Double($0[1])!, lon: Double($0[2])!, radius: Double($0[3])!) }
    print("posts: \(posts.count), queries: \(queries.count), runs: \(runs), parse: \(String(format: "%.1f", seconds(clock.now - parseStart))) s")
    print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores\n")

    // MARK: Build, insert, memory

    func timeBuild<Index: SpatialIndex>(_: Index.Type) -> (Index, Double) {
        var best = Double.infinity
        var built = Index()
        for _ in 0..<3 {
            let start = clock.now
            built = Index(bulk: posts)
            best = min(best, seconds(clock.now - start))
        }
        return (built, best)
    }

    /// A map view of the given width in degrees (half as tall) around a query point.
    func view(around q: Query, span: Double) -> GeoBox {
        span >= 360 ? GeoBox.world
            : GeoBox(west: max(-180, q.lon - span / 2), south: max(-90, q.lat - span / 4), east: min(180, q.lon + span / 2), north: min(90, q.lat + span / 4))
    }

    if ProcessInfo.processInfo.environment["BENCH_PROFILE"] == "popular" {
        runPopularBenchmark(posts: posts, queries: Array(queries), runs: runs)
        return
    }
    if ProcessInfo.processInfo.environment["BENCH_PROFILE"] == "places" {
        runPlaceBenchmark(posts: posts, queries: Array(queries), runs: runs)
        return
    }
    if ProcessInfo.processInfo.environment["BENCH_PROFILE"] == "clusters" {
        // For callgrind: one bulk build, then clusters at zoom 10 and 16 over the first 200 views.
        let tree = RTreeIndex(bulk: posts)
        for (zoom, span) in [(10, 0.7), (16, 0.011)] {
            var times: [Double] = []
            for q in queries.prefix(200) {
                let start = clock.now
                let result = tree.clusters(in: view(around: q, span: span), filter: .all, zoom: zoom)
                times.append(seconds(clock.now - start) * 1e6)
                precondition(result.clusters.reduce(0) { $0 + $1.count } == result.total)
            }
            print(String(format: "clusters at zoom %d, µs: median %.1f, mean %.1f", zoom, times.sorted()[times.count / 2], times.reduce(0, +) / Double(times.count)))
        }
        return
    }

    if ProcessInfo.processInfo.environment["BENCH_PROFILE"] == "1" {
        // For callgrind: one bulk build and one pass of plain queries, nothing else.
        let tree = RTreeIndex(bulk: posts)
        // BENCH_PROFILE_PASSES repeats the query pass, so the queries outweigh parsing in a profile.
        let passes = Int(ProcessInfo.processInfo.environment["BENCH_PROFILE_PASSES"] ?? "") ?? 1
        var total = 0
        for _ in 0..<passes {
            for q in queries { total += tree.nearby(NearbySearch(lat: q.lat, lon: q.lon, radius: q.radius)).count }
        }
        print("profile pass: \(total) results")
        // Cold: each query once, after 1999 others; warm: the best of five repeats at once.
        var warm: [Double] = []
        var cold: [Double] = []
        for q in queries {
            let search = NearbySearch(lat: q.lat, lon: q.lon, radius: q.radius)
            var best = Double.infinity
            for rep in 0..<6 {
                let start = clock.now
                total &+= tree.nearby(search).count
                let t = seconds(clock.now - start) * 1e6
                if rep == 0 { cold.append(t) } else { best = min(best, t) }
            }
            warm.append(best)
        }
        print(String(format: "plain queries, µs: cold median %.2f, warm median %.2f, warm mean %.2f", cold.sorted()[cold.count / 2], warm.sorted()[warm.count / 2], warm.reduce(0, +) / Double(warm.count)))
        // The floor no walk can go under: the exact evaluation the walk runs on each post a
        // query returns (distance, bearing, with the viewer's terms hoisted as in the walk),
        // alone, warm, best of five.
        let byId = Dictionary(posts.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        var formulas: [Double] = []
        var sink = 0.0
        for q in queries {
            let search = NearbySearch(lat: q.lat, lon: q.lon, radius: q.radius)
            let found = tree.nearby(search).map { byId[$0.id]! }
            var best = Double.infinity
            for _ in 0..<5 {
                let start = clock.now
                let viewer = ViewerTrigonometry(lat: q.lat)
                for post in found { sink += search.hit(for: post, viewer: viewer)?.bearing ?? 0 }
                best = min(best, seconds(clock.now - start) * 1e6)
            }
            formulas.append(best)
        }
        print(String(format: "exact formulas alone for the posts returned, µs: median %.2f, mean %.2f (checksum %.0f)", formulas.sorted()[formulas.count / 2], formulas.reduce(0, +) / Double(formulas.count), sink))
        return
    }
    // BENCH_STRUCTURES=rtree skips the grid (minutes per variant at 10M posts).
    let withGrid = ProcessInfo.processInfo.environment["BENCH_STRUCTURES"] != "rtree"
    let (rtree, rtreeBuild) = timeBuild(RTreeIndex.self)
    let (grid, gridBuild) = withGrid ? timeBuild(GridIndex.self) : (GridIndex(), 0)
    let insertCount = min(100_000, posts.count / 10)
    var growing = RTreeIndex(bulk: Array(posts.dropLast(insertCount)))
    let insertStart = clock.now
    for post in posts.suffix(insertCount) { growing.insert(post) }
    let insertRate = Double(insertCount) / seconds(clock.now - insertStart)
    print("| structure | bulk build (best of 3) | bytes per post |")
    print("|---|---|---|")
    print("| R-tree | \(String(format: "%.3f", rtreeBuild)) s | \(rtree.approximateBytes / max(1, posts.count)) |")
    print("| grid | \(String(format: "%.3f", gridBuild)) s | – |")
    print("\nR-tree inserts into a tree of \(growing.count - insertCount): \(Int(insertRate)) posts/s; invariants after: \(growing.invariantViolations().isEmpty ? "sound" : "BROKEN")\n")

    // MARK: Queries

    struct Variant {
        var name: String
        var make: (Query, Int) -> NearbySearch
    }

    let food = tags.id(of: "food").map { Set([$0]) }
    let maxTime = posts.map(\.createdAt).max() ?? 0
    let month: Int64 = 30 * 86_400_000
    let variants: [Variant] = [
        Variant(name: "plain") { q, _ in NearbySearch(lat: q.lat, lon: q.lon, radius: q.radius) },
        Variant(name: "cone 60°") { q, i in
            NearbySearch(lat: q.lat, lon: q.lon, radius: q.radius, cone: .init(facing: Double(i * 37 % 360), fov: 60, accuracy: 10))
        },
        Variant(name: "tag food") { q, _ in NearbySearch(lat: q.lat, lon: q.lon, radius: q.radius, filter: PostFilter(tags: food)) },
        Variant(name: "last 30 days") { q, _ in
            NearbySearch(lat: q.lat, lon: q.lon, radius: q.radius, filter: PostFilter(createdFrom: maxTime - month))
        },
        Variant(name: "cone+tag+time") { q, i in
            NearbySearch(
                lat: q.lat, lon: q.lon, radius: q.radius, cone: .init(facing: Double(i * 37 % 360), fov: 60, accuracy: 10),
                filter: PostFilter(tags: food, createdFrom: maxTime - month))
        },
        Variant(name: "newest first") { q, _ in NearbySearch(lat: q.lat, lon: q.lon, radius: q.radius, order: .newest) },
    ]

    /// Per-query microseconds over `runs` passes; each query's figure is its median across passes.
    func measure(_ index: any SpatialIndex, _ variant: Variant) -> (perQuery: [Double], checksum: Int) {
        var times = Array(repeating: [Double](), count: queries.count)
        var checksum = 0
        for _ in 0..<runs {
            for (i, q) in queries.enumerated() {
                let search = variant.make(q, i)
                let start = clock.now
                let hits = index.nearby(search)
                times[i].append(seconds(clock.now - start) * 1e6)
                checksum &+= hits.count
            }
        }
        return (times.map { $0.sorted()[$0.count / 2] }, checksum)
    }

    func stats(_ values: [Double]) -> String {
        guard !values.isEmpty else { return "– | – | –" }
        let sorted = values.sorted()
        let median = sorted[sorted.count / 2], p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        let mean = sorted.reduce(0, +) / Double(sorted.count)
        return String(format: "%.2f | %.2f | %.2f", median, mean, p99)
    }

    print("Per-query time in µs (one core, LIMIT 50): median | mean | p99\n")
    print("| structure | filter | radius | median | mean | p99 |")
    print("|---|---|---|---|---|---|")
    let radii = Array(Set(queries.map(\.radius))).sorted()
    let structures: [(String, any SpatialIndex)] = withGrid ? [("R-tree", rtree), ("grid", grid)] : [("R-tree", rtree)]
    for (name, index) in structures {
        for variant in variants {
            let (times, checksum) = measure(index, variant)
            print("| \(name) | \(variant.name) | all | \(stats(times)) |")
            for radius in radii {
                let subset = zip(queries, times).filter { $0.0.radius == radius }.map(\.1)
                print("| \(name) | \(variant.name) | \(Int(radius)) m | \(stats(subset)) |")
            }
            FileHandle.standardError.write(Data("\(name) \(variant.name): \(checksum / runs) results\n".utf8))
        }
    }

    // MARK: Clusters

    print("\nClusters (µs per call; first 200 query points as view centres)\n")
    print("| structure | zoom | view | median | mean | p99 |")
    print("|---|---|---|---|---|---|")
    for (name, index) in structures {
        for (zoom, span) in [(3, 360.0), (10, 0.7), (16, 0.011)] {
            var times: [Double] = []
            for q in queries.prefix(200) {
                let box = view(around: q, span: span)
                let start = clock.now
                let result = index.clusters(in: box, filter: .all, zoom: zoom)
                times.append(seconds(clock.now - start) * 1e6)
                precondition(result.clusters.reduce(0) { $0 + $1.count } == result.total)
            }
            print("| \(name) | \(zoom) | \(span >= 360 ? "world" : "\(span)° wide") | \(stats(times)) |")
        }
    }
}

if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "compaction" {
    await runCompactionBenchmark(CommandLine.arguments)
} else {
    runBenchmark()
}
