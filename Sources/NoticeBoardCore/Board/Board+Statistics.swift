import Foundation
import GeoIndex

/// The moderators' statistics: posts per bucket, tag and cell from the index (one walk over
/// the posts of the range and area, whole subtrees of other times and places skipped), the
/// rest from the database.
extension Board {
    public func statistics(_ query: StatsQuery) async throws -> BoardStatistics {
        let place = try resolvePlace(query.place)
        guard let moderation else { throw StoreError.unavailable("this board has no moderation store") }
        let area = query.box ?? place?.shape.box
        let activity = try await moderation.activity(from: query.from, to: query.to, box: area, posterPositions: place != nil)
        let starts = query.bucketStarts
        let first = starts[0], width = query.bucket.milliseconds
        var counts = [BoardStatistics.Counts](repeating: .init(), count: starts.count)
        var cells = StatisticsCells(degrees: Self.cellDegrees(for: area ?? .world))
        state.read { state in
            var tagCounts = [[TagID: Int]](repeating: [:], count: starts.count)
            let filter = PostFilter(createdFrom: query.from, createdBefore: query.to, floors: place?.floorRange, place: place?.shape)
            state.index.forEachMatchingPost(in: query.box ?? .world, filter: filter) { post in
                let b = Int((post.createdAt - first) / width)
                counts[b].posts += 1
                tagCounts[b][post.tag, default: 0] += 1
                cells.add(lat: post.lat, lon: post.lon)
            }
            for (b, byTag) in tagCounts.enumerated() {
                for (tag, count) in byTag { counts[b].byTag[state.tags.name(of: tag), default: 0] += count }
            }
        }
        func inArea(_ lat: Double, _ lon: Double, _ floor: Int?) -> Bool {
            if let box = query.box, !box.contains(lat: lat, lon: lon) { return false }
            if let place, !place.contains(lat: lat, lon: lon, floor: floor) { return false }
            return true
        }
        for event in activity.events where event.at >= query.from && event.at < query.to && inArea(event.lat, event.lon, event.floor) {
            let b = Int((event.at - first) / width)
            switch event.kind {
            case .report: counts[b].reports += 1
            case .hide: counts[b].hidden += 1
            case .delete: counts[b].deleted += 1
            case .reply: counts[b].replies += 1
            case .like: counts[b].likes += 1
            case .removedPost:
                counts[b].posts += 1
                counts[b].byTag[event.tag, default: 0] += 1
                cells.add(lat: event.lat, lon: event.lon)
            }
        }
        let devices = activity.posterCount ?? Set(activity.posters.lazy.filter { inArea($0.lat, $0.lon, $0.floor) }.map(\.clientHash)).count
        var totals = BoardStatistics.Counts()
        for bucket in counts { totals.add(bucket) }
        return BoardStatistics(
            bucket: query.bucket, from: query.from, to: query.to,
            buckets: zip(starts, counts).map { BoardStatistics.Bucket(start: $0, counts: $1) }, totals: totals, devices: devices,
            topCells: cells.top(BoardStatistics.topCellLimit), cellDegrees: cells.degrees)
    }

    /// Cells about a 32nd of the area across, a power-of-two fraction of the globe.
    static func cellDegrees(for box: GeoBox) -> Double {
        let width = box.crossesAntimeridian ? box.east + 360 - box.west : box.east - box.west
        let span = max(width, box.north - box.south, 1e-6)
        let zoom = min(24, max(0, Int((log2(360 * 32 / span)).rounded(.down))))
        return 360 / Double(1 << zoom)
    }
}

/// Posts counted on a grid of square cells, with their mean position.
struct StatisticsCells {
    struct Key: Hashable { var row: Int; var column: Int }
    let degrees: Double
    var cells: [Key: (count: Int, lat: Double, lon: Double)] = [:]

    init(degrees: Double) { self.degrees = degrees }

    mutating func add(lat: Double, lon: Double) {
        // 180 and -180 are one meridian: one cell, one mean.
        let canonical = lon == 180 ? -180 : lon
        let key = Key(row: Int(((lat + 90) / degrees).rounded(.down)), column: Int((canonical + 180) / degrees))
        var cell = cells[key] ?? (0, 0, 0)
        cell.count += 1
        cell.lat += lat
        cell.lon += canonical
        cells[key] = cell
    }

    /// The busiest cells, ties by position (south first, then west).
    func top(_ limit: Int) -> [BoardStatistics.Cell] {
        cells.sorted { a, b in
            a.value.count != b.value.count ? a.value.count > b.value.count
                : (a.key.row, a.key.column) < (b.key.row, b.key.column)
        }.prefix(limit).map { BoardStatistics.Cell(lat: $0.value.lat / Double($0.value.count), lon: $0.value.lon / Double($0.value.count), count: $0.value.count) }
    }
}
