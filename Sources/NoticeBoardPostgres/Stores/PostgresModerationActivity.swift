import GeoIndex
import NoticeBoardCore
import PostgresNIO

/// The database's part of the moderators' statistics: events and posters in a time range,
/// within a box, each read in one statement.
extension PostgresModerationStore {
    public func activity(from: Int64, to: Int64, box: GeoBox?, posterPositions: Bool) async throws -> ModerationActivity {
        // The box as longitude ranges on canonical longitudes (180 is written -180).
        var wests: [Double] = [], easts: [Double] = []
        for part in box?.nonCrossingParts ?? [] {
            wests.append(part.west)
            easts.append(part.east)
            if part.east == 180 { (wests, easts) = (wests + [-180], easts + [-180]) }
        }
        let (westEdges, eastEdges) = (wests, easts)
        let (south, north, anywhere) = (box?.south ?? -90, box?.north ?? 90, box == nil)
        return try await StoreErrors.bounded { [self] in
            var events: [ModerationActivity.Event] = []
            for try await (kind, at, lat, lon, floor, tag) in try await client.query(
                """
                WITH range AS (SELECT timestamptz 'epoch' + \(from)::int8 * interval '1 millisecond' AS low,
                                      timestamptz 'epoch' + \(to)::int8 * interval '1 millisecond' AS high),
                happened AS (
                    SELECT 'report' AS kind, r.created_at AS at, r.post_id FROM reports r, range
                    WHERE r.created_at >= range.low AND r.created_at < range.high
                    UNION ALL
                    SELECT CASE WHEN a.action IN ('delete', 'author_delete') THEN 'delete' ELSE 'hide' END, a.at, a.post_id FROM audit_log a, range
                    WHERE a.action IN ('hide', 'auto_hide', 'delete', 'author_delete') AND a.at >= range.low AND a.at < range.high
                    UNION ALL
                    SELECT 'reply', r.created_at, r.post_id FROM replies r, range
                    WHERE r.created_at >= range.low AND r.created_at < range.high
                    UNION ALL
                    SELECT 'like', l.created_at, l.post_id FROM likes l, range
                    WHERE l.created_at >= range.low AND l.created_at < range.high
                    UNION ALL
                    SELECT 'removed', p.created_at, p.id FROM posts p, range
                    WHERE p.status IN ('hidden', 'deleted') AND p.created_at >= range.low AND p.created_at < range.high
                )
                SELECT h.kind, (extract(epoch FROM h.at) * 1000)::int8, p.lat, p.lon, p.floor, p.tag
                FROM happened h JOIN posts p ON p.id = h.post_id
                WHERE \(anywhere) OR (p.lat BETWEEN \(south) AND \(north)
                      AND EXISTS (SELECT 1 FROM unnest(\(westEdges)::float8[], \(eastEdges)::float8[]) AS b(w, e)
                                  WHERE (CASE WHEN p.lon = 180 THEN -180 ELSE p.lon END) BETWEEN b.w AND b.e))
                LIMIT 1000000
                """, logger: logger
            ).decode((String, Int64, Double, Double, Int16?, String).self) {
                let kinds: [String: ModerationActivity.Kind] = [
                    "report": .report, "hide": .hide, "delete": .delete, "removed": .removedPost, "reply": .reply, "like": .like,
                ]
                guard let kind = kinds[kind] else { continue }
                events.append(.init(kind: kind, at: at, lat: lat, lon: lon, floor: floor.map(Int.init), tag: tag))
            }
            let inRange = """
                p.client_hash IS NOT NULL
                AND p.created_at >= timestamptz 'epoch' + $1::int8 * interval '1 millisecond'
                AND p.created_at < timestamptz 'epoch' + $2::int8 * interval '1 millisecond'
                AND ($3 OR (p.lat BETWEEN $4 AND $5
                     AND EXISTS (SELECT 1 FROM unnest($6::float8[], $7::float8[]) AS b(w, e)
                                 WHERE (CASE WHEN p.lon = 180 THEN -180 ELSE p.lon END) BETWEEN b.w AND b.e)))
                """
            var bindings = PostgresBindings()
            bindings.append(from)
            bindings.append(to)
            bindings.append(anywhere)
            bindings.append(south)
            bindings.append(north)
            bindings.append(westEdges)
            bindings.append(eastEdges)
            guard posterPositions else {
                // Counted where they are: a board-wide month may have as many posters as posts.
                var count = 0
                for try await devices in try await client.query(
                    PostgresQuery(unsafeSQL: "SELECT count(DISTINCT p.client_hash)::int8 FROM posts p WHERE \(inRange)", binds: bindings),
                    logger: logger
                ).decode(Int64.self) {
                    count = Int(devices)
                }
                return ModerationActivity(events: events, posters: [], posterCount: count)
            }
            // Only within a place's box, narrowed to its outline by the caller.
            var posters: [ModerationActivity.Poster] = []
            for try await (lat, lon, floor, hash) in try await client.query(
                PostgresQuery(unsafeSQL: "SELECT DISTINCT p.lat, p.lon, p.floor, p.client_hash FROM posts p WHERE \(inRange)", binds: bindings),
                logger: logger
            ).decode((Double, Double, Int16?, String).self) {
                posters.append(.init(lat: lat, lon: lon, floor: floor.map(Int.init), clientHash: hash))
            }
            return ModerationActivity(events: events, posters: posters)
        }
    }
}
