import GeoIndex
import Logging
import NoticeBoardCore
import PostgresNIO

/// Places and announcements on PostgreSQL; every change is audited and raises the revision in
/// the same transaction.
public struct PostgresPlaceStore: PlaceStore {
    let client: DatabasePool
    /// Where the directory is read from: a hot standby when the instance is given one.
    let reads: DatabasePool
    let logger: Logger
    /// Places the board keeps (tests use a few).
    let placeLimit: Int

    public init(client: DatabasePool, reads: DatabasePool? = nil, logger: Logger, placeLimit: Int = PlaceLimits.places) {
        self.client = client
        self.reads = reads ?? client
        self.logger = logger
        self.placeLimit = placeLimit
    }

    public func revision() async throws -> Int64 {
        try await StoreErrors.bounded { [self] in
            for try await revision in try await reads.query("SELECT revision FROM place_revision", logger: logger).decode(Int64.self) {
                return revision
            }
            return 0
        }
    }

    /// The revision is read first: data read after it is at least as new, and a change that
    /// lands in between moves the revision again, so the next poll reloads.
    public func directory() async throws -> PlaceDirectory {
        try await StoreErrors.bounded { [self] in
            let revision = try await self.revision()
            var places: [Place] = []
            for try await (slug, name, polygon, floorMin, floorMax, description) in try await reads.query(
                "SELECT slug, name, polygon, floor_min, floor_max, description FROM places ORDER BY slug LIMIT \(placeLimit)",
                logger: logger
            ).decode((String, String, [Double], Int16?, Int16?, String).self) {
                let ring = stride(from: 0, to: polygon.count - 1, by: 2).map { (lon: polygon[$0], lat: polygon[$0 + 1]) }
                guard let shape = try? PlaceShape.validated(ring, checkedBefore: true) else {
                    logger.error("stored place has an invalid polygon; skipped", metadata: ["slug": "\(slug)"])
                    continue
                }
                let floors = floorMin.flatMap { low in floorMax.map { Int(low)...Int($0) } }
                places.append(Place(slug: slug, name: name, shape: shape, floors: floors, description: description))
            }
            var announcements: [Announcement] = []
            for try await (id, place, message, createdAt, until) in try await reads.query(
                """
                SELECT id, place, message, (extract(epoch FROM created_at) * 1000)::int8, (extract(epoch FROM until) * 1000)::int8
                FROM place_announcements WHERE until > now() ORDER BY id LIMIT 100000
                """, logger: logger
            ).decode((Int64, String, String, Int64, Int64).self) {
                announcements.append(Announcement(id: id, place: place, message: message, createdAt: createdAt, until: until))
            }
            return PlaceDirectory(revision: revision, places: places, announcements: announcements)
        }
    }

    public func put(_ place: Place, actor: String) async throws -> Bool {
        let polygon = place.polygon.flatMap { [$0.lon, $0.lat] }
        let floorMin = place.floors.map { Int16($0.lowerBound) }, floorMax = place.floors.map { Int16($0.upperBound) }
        return try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection in
                // Place writes take turns (they are rare), so the count below stays true until commit.
                try await connection.query("LOCK TABLE places IN SHARE ROW EXCLUSIVE MODE", logger: logger)
                for try await full in try await connection.query(
                    "SELECT count(*) >= \(placeLimit) AND NOT EXISTS (SELECT 1 FROM places WHERE slug = \(place.slug)) FROM places",
                    logger: logger
                ).decode(Bool.self) where full {
                    throw StoreError.limitReached("the board holds \(placeLimit) places, as many as it keeps: delete one first")
                }
                var created = false
                // xmax = 0 only on a freshly inserted row: tells a create from a replacement.
                for try await inserted in try await connection.query(
                    """
                    INSERT INTO places (slug, name, polygon, floor_min, floor_max, description)
                    VALUES (\(place.slug), \(place.name), \(polygon), \(floorMin), \(floorMax), \(place.description))
                    ON CONFLICT (slug) DO UPDATE
                    SET name = EXCLUDED.name, polygon = EXCLUDED.polygon, floor_min = EXCLUDED.floor_min,
                        floor_max = EXCLUDED.floor_max, description = EXCLUDED.description, updated_at = now()
                    RETURNING (xmax = 0)
                    """, logger: logger
                ).decode(Bool.self) {
                    created = inserted
                }
                try await Self.record(connection, actor: actor, action: "place_put", reason: place.slug, logger: logger)
                return created
            }
        }
    }

    public func delete(slug: String, actor: String) async throws -> Bool {
        try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection in
                var deleted = false
                for try await _ in try await connection.query("DELETE FROM places WHERE slug = \(slug) RETURNING slug", logger: logger) {
                    deleted = true
                }
                if deleted { try await Self.record(connection, actor: actor, action: "place_delete", reason: slug, logger: logger) }
                return deleted
            }
        }
    }

    public func announce(_ draft: AnnouncementDraft, place slug: String, actor: String) async throws -> Announcement? {
        try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection in
                var made: Announcement?
                for try await (id, createdAt) in try await connection.query(
                    """
                    INSERT INTO place_announcements (place, message, until)
                    SELECT slug, \(draft.message), to_timestamp(\(Double(draft.until) / 1000)) FROM places WHERE slug = \(slug)
                    RETURNING id, (extract(epoch FROM created_at) * 1000)::int8
                    """, logger: logger
                ).decode((Int64, Int64).self) {
                    made = Announcement(id: id, place: slug, message: draft.message, createdAt: createdAt, until: draft.until)
                }
                if let made {
                    try await Self.record(connection, actor: actor, action: "announcement_post", reason: "\(slug) #\(made.id)", logger: logger)
                }
                return made
            }
        }
    }

    public func deleteAnnouncement(id: Int64, actor: String) async throws -> Bool {
        try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection in
                var place: String?
                for try await slug in try await connection.query(
                    "DELETE FROM place_announcements WHERE id = \(id) RETURNING place", logger: logger
                ).decode(String.self) {
                    place = slug
                }
                guard let place else { return false }
                try await Self.record(connection, actor: actor, action: "announcement_delete", reason: "\(place) #\(id)", logger: logger)
                return true
            }
        }
    }

    /// The audit entry and the revision bump, inside the change's transaction.
    static func record(_ connection: PostgresConnection, actor: String, action: String, reason: String, logger: Logger) async throws {
        try await connection.query(
            "INSERT INTO audit_log (actor, action, reason) VALUES (\(actor), \(action), \(reason))", logger: logger)
        try await connection.query("UPDATE place_revision SET revision = revision + 1", logger: logger)
    }
}
