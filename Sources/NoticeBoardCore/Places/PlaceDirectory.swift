/// Every place and its announcements as of one revision of the store: what queries resolve
/// `place=` against, held in memory and replaced whole when the store's revision moves.
public struct PlaceDirectory: Sendable {
    public var revision: Int64
    /// By slug; the store keeps at most `PlaceStore.placeLimit`.
    public var places: [String: Place]
    /// Announcements not yet ended when read, by place slug, newest first.
    public var announcements: [String: [Announcement]]

    public init(revision: Int64 = 0, places: [Place] = [], announcements: [Announcement] = []) {
        self.revision = revision
        self.places = Dictionary(places.map { ($0.slug, $0) }, uniquingKeysWith: { $1 })
        self.announcements = Dictionary(grouping: announcements, by: \.place).mapValues {
            $0.sorted { $0.createdAt > $1.createdAt || ($0.createdAt == $1.createdAt && $0.id > $1.id) }
        }
    }

    public static let empty = PlaceDirectory()

    /// Slugs in order, for paging.
    public var sortedSlugs: [String] { places.keys.sorted() }
}
