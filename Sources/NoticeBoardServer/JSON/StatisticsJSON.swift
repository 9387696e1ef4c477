import NoticeBoardCore

/// `{"bucket", "timeZone": "UTC", "from", "to", "buckets": [{"start", counts…, "byTag"}],
/// "totals": {counts…, "byTag", "devices"}, "topCells": [{"lat", "lon", "count"}], "cellDegrees"}`.
struct StatisticsJSON: Encodable {
    var statistics: BoardStatistics

    init(_ statistics: BoardStatistics) { self.statistics = statistics }

    enum Keys: String, CodingKey {
        case bucket, timeZone, from, to, buckets, totals, topCells, cellDegrees
        case start, posts, replies, likes, reports, hidden, deleted, byTag, devices, lat, lon, count
    }

    func encode(to encoder: any Encoder) throws {
        var root = encoder.container(keyedBy: Keys.self)
        try root.encode(statistics.bucket.rawValue, forKey: .bucket)
        try root.encode("UTC", forKey: .timeZone)
        try root.encode(Timestamp.format(milliseconds: statistics.from), forKey: .from)
        try root.encode(Timestamp.format(milliseconds: statistics.to), forKey: .to)
        var buckets = root.nestedUnkeyedContainer(forKey: .buckets)
        for bucket in statistics.buckets {
            var item = buckets.nestedContainer(keyedBy: Keys.self)
            try item.encode(Timestamp.format(milliseconds: bucket.start), forKey: .start)
            try Self.encode(bucket.counts, into: &item)
        }
        var totals = root.nestedContainer(keyedBy: Keys.self, forKey: .totals)
        try Self.encode(statistics.totals, into: &totals)
        try totals.encode(statistics.devices, forKey: .devices)
        var cells = root.nestedUnkeyedContainer(forKey: .topCells)
        for cell in statistics.topCells {
            var item = cells.nestedContainer(keyedBy: Keys.self)
            try item.encode(cell.lat, forKey: .lat)
            try item.encode(cell.lon, forKey: .lon)
            try item.encode(cell.count, forKey: .count)
        }
        try root.encode(statistics.cellDegrees, forKey: .cellDegrees)
    }

    static func encode(_ counts: BoardStatistics.Counts, into container: inout KeyedEncodingContainer<Keys>) throws {
        try container.encode(counts.posts, forKey: .posts)
        try container.encode(counts.replies, forKey: .replies)
        try container.encode(counts.likes, forKey: .likes)
        try container.encode(counts.reports, forKey: .reports)
        try container.encode(counts.hidden, forKey: .hidden)
        try container.encode(counts.deleted, forKey: .deleted)
        try container.encode(counts.byTag, forKey: .byTag)
    }
}
