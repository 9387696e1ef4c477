-- The beacon registry: iBeacon identities placed by moderators. Posts keep the position they
-- were given; moving or deleting a beacon changes where new posts and queries go.
CREATE TABLE beacons (
    uuid       text NOT NULL CHECK (uuid ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'),
    major      integer NOT NULL CHECK (major BETWEEN 0 AND 65535),
    minor      integer NOT NULL CHECK (minor BETWEEN 0 AND 65535),
    lat        double precision NOT NULL CHECK (lat BETWEEN -90 AND 90),
    lon        double precision NOT NULL CHECK (lon BETWEEN -180 AND 180),
    floor      smallint CHECK (floor BETWEEN -20 AND 200),
    name       text NOT NULL DEFAULT '' CHECK (char_length(name) <= 200),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (uuid, major, minor)
);
