/// What the moderators' dashboard shows: activity per time bucket, totals, and the busiest cells.
public struct BoardStatistics: Sendable, Equatable {
    public struct Counts: Sendable, Equatable {
        public var posts = 0
        public var replies = 0
        public var likes = 0
        public var reports = 0
        public var hidden = 0
        public var deleted = 0
        public var byTag: [String: Int] = [:]

        public init() {}

        mutating func add(_ other: Counts) {
            posts += other.posts; replies += other.replies; likes += other.likes
            reports += other.reports; hidden += other.hidden; deleted += other.deleted
            byTag.merge(other.byTag, uniquingKeysWith: +)
        }
    }

    public struct Bucket: Sendable, Equatable {
        public var start: Int64
        public var counts: Counts
    }

    public struct Cell: Sendable, Equatable {
        /// The mean position of the cell's posts.
        public var lat: Double
        public var lon: Double
        public var count: Int
    }

    public var bucket: StatsQuery.Bucket
    public var from: Int64
    public var to: Int64
    public var buckets: [Bucket]
    public var totals: Counts
    /// Distinct posting clients (their address pseudonyms) in the range and area.
    public var devices: Int
    public var topCells: [Cell]
    /// The side of a cell of `topCells`, in degrees.
    public var cellDegrees: Double

    public static let topCellLimit = 200
}

/// What the database adds to the index's counts: moderation and reports in the range, posts
/// no longer visible, and the clients who posted.
public struct ModerationActivity: Sendable {
    public enum Kind: Sendable, Equatable {
        case report, hide, delete
        /// A reply written in the range, and a like given then (and not taken back).
        case reply, like
        /// A post made in the range that is hidden or deleted now (the index holds only visible ones).
        case removedPost
    }

    public struct Event: Sendable, Equatable {
        public var kind: Kind
        public var at: Int64
        public var lat: Double
        public var lon: Double
        public var floor: Int?
        public var tag: String

        public init(kind: Kind, at: Int64, lat: Double, lon: Double, floor: Int?, tag: String) {
            (self.kind, self.at, self.lat, self.lon, self.floor, self.tag) = (kind, at, lat, lon, floor, tag)
        }
    }

    public struct Poster: Sendable, Equatable {
        public var lat: Double
        public var lon: Double
        public var floor: Int?
        public var clientHash: String

        public init(lat: Double, lon: Double, floor: Int?, clientHash: String) {
            (self.lat, self.lon, self.floor, self.clientHash) = (lat, lon, floor, clientHash)
        }
    }

    public var events: [Event]
    /// One row per posting client and position in the range (posts without a client hash, such
    /// as imported ones, count no device).
    public var posters: [Poster]
    /// Distinct posting clients of the range and box, when positions were not asked for.
    public var posterCount: Int?

    public init(events: [Event], posters: [Poster], posterCount: Int? = nil) {
        self.events = events
        self.posters = posters
        self.posterCount = posterCount
    }
}
