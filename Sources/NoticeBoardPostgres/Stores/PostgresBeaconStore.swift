import Logging
import NoticeBoardCore
import PostgresNIO

/// The beacon registry on PostgreSQL; every change is audited in the same transaction.
public struct PostgresBeaconStore: BeaconStore {
    let client: DatabasePool
    let logger: Logger

    public init(client: DatabasePool, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func beacon(_ reference: BeaconReference) async throws -> Beacon? {
        try await StoreErrors.bounded { [self] in
            for try await (lat, lon, floor, name) in try await client.query(
                """
                SELECT lat, lon, floor, name FROM beacons
                WHERE uuid = \(reference.uuid) AND major = \(reference.major) AND minor = \(reference.minor)
                """, logger: logger
            ).decode((Double, Double, Int16?, String).self) {
                return Beacon(reference: reference, lat: lat, lon: lon, floor: floor.map(Int.init), name: name)
            }
            return nil
        }
    }

    public func all() async throws -> [Beacon] {
        try await StoreErrors.bounded { [self] in
            var beacons: [Beacon] = []
            for try await (uuid, major, minor, lat, lon, floor, name) in try await client.query(
                "SELECT uuid, major, minor, lat, lon, floor, name FROM beacons ORDER BY uuid, major, minor LIMIT 10000",
                logger: logger
            ).decode((String, Int32, Int32, Double, Double, Int16?, String).self) {
                let reference = try BeaconReference(uuid: uuid, major: String(major), minor: String(minor))
                beacons.append(Beacon(reference: reference, lat: lat, lon: lon, floor: floor.map(Int.init), name: name))
            }
            return beacons
        }
    }

    public func put(_ beacon: Beacon, actor: String) async throws -> Bool {
        let r = beacon.reference
        return try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection in
                var created = false
                // xmax = 0 only on a freshly inserted row: tells a create from a move.
                for try await inserted in try await connection.query(
                    """
                    INSERT INTO beacons (uuid, major, minor, lat, lon, floor, name)
                    VALUES (\(r.uuid), \(r.major), \(r.minor), \(beacon.lat), \(beacon.lon), \(beacon.floor.map(Int16.init)), \(beacon.name))
                    ON CONFLICT (uuid, major, minor) DO UPDATE
                    SET lat = EXCLUDED.lat, lon = EXCLUDED.lon, floor = EXCLUDED.floor, name = EXCLUDED.name, updated_at = now()
                    RETURNING (xmax = 0)
                    """, logger: logger
                ).decode(Bool.self) {
                    created = inserted
                }
                try await connection.query(
                    "INSERT INTO audit_log (actor, action, reason) VALUES (\(actor), 'beacon_put', \(r.description))", logger: logger)
                return created
            }
        }
    }

    public func delete(_ reference: BeaconReference, actor: String) async throws -> Bool {
        try await StoreErrors.bounded { [self] in
            try await client.withTransaction(logger: logger) { connection in
                var deleted = false
                for try await _ in try await connection.query(
                    """
                    DELETE FROM beacons WHERE uuid = \(reference.uuid) AND major = \(reference.major) AND minor = \(reference.minor)
                    RETURNING uuid
                    """, logger: logger)
                {
                    deleted = true
                }
                if deleted {
                    try await connection.query(
                        "INSERT INTO audit_log (actor, action, reason) VALUES (\(actor), 'beacon_delete', \(reference.description))",
                        logger: logger)
                }
                return deleted
            }
        }
    }
}
