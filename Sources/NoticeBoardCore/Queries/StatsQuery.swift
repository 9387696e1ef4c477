import GeoIndex

/// `GET /api/v1/moderation/stats`, validated: a time range cut into UTC hours, days or weeks
/// (weeks start on Monday, as ISO weeks do), narrowed by a box or a place.
public struct StatsQuery: Sendable {
    public enum Bucket: String, Sendable {
        case hour, day, week

        public var milliseconds: Int64 {
            switch self {
            case .hour: 3_600_000
            case .day: 86_400_000
            case .week: 7 * 86_400_000
            }
        }

        /// The default span when `from` is not given.
        var defaultSpan: Int64 {
            switch self {
            case .hour: 48 * 3_600_000
            case .day: 30 * 86_400_000
            case .week: 26 * 7 * 86_400_000
            }
        }

        /// The start of the bucket holding `time` (1970-01-01 was a Thursday; weeks start on Monday).
        public func start(of time: Int64) -> Int64 {
            let offset: Int64 = self == .week ? 3 * 86_400_000 : 0
            let shifted = time + offset
            let floored = shifted >= 0 ? shifted / milliseconds : (shifted - milliseconds + 1) / milliseconds
            return floored * milliseconds - offset
        }
    }

    public static let maxBuckets = 1000

    public var bucket: Bucket
    /// Inclusive; the first bucket starts at the bucket start holding it.
    public var from: Int64
    /// Exclusive.
    public var to: Int64
    public var box: GeoBox?
    public var place: String?

    public init(_ parameters: QueryParameters, now: Int64) throws(ValidationError) {
        switch parameters.first("bucket") {
        case nil: bucket = .day
        case let text?:
            guard let parsed = Bucket(rawValue: text) else { throw ValidationError(field: "bucket", "must be hour, day or week") }
            bucket = parsed
        }
        let (from, to) = try parameters.timeRange()
        self.to = to ?? now + 1
        self.from = from ?? (self.to - bucket.defaultSpan)
        guard self.from < self.to else { throw ValidationError(field: "from", "must be earlier than to") }
        let count = (self.to - 1 - bucket.start(of: self.from)) / bucket.milliseconds + 1
        guard count <= Int64(Self.maxBuckets) else {
            throw ValidationError(field: "bucket", "from..to holds \(count) buckets; at most \(Self.maxBuckets)")
        }
        box = try parameters.box()
        place = try parameters.place()
    }

    /// The bucket starts from the one holding `from` to the one holding `to - 1`.
    public var bucketStarts: [Int64] {
        Array(stride(from: bucket.start(of: from), to: to, by: Int(bucket.milliseconds)))
    }
}
