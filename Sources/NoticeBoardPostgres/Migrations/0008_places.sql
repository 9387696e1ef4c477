-- Places drawn by moderators, their announcements, and one revision number that every change
-- raises in its transaction: instances poll it and reload their directory when it moves.
CREATE TABLE places (
    slug        text PRIMARY KEY CHECK (slug ~ '^[a-z0-9-]{1,64}$'),
    name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
    -- lon, lat, lon, lat, … as stored (whole 1e-7°), without the closing repeat.
    polygon     double precision[] NOT NULL CHECK (cardinality(polygon) BETWEEN 6 AND 2000 AND cardinality(polygon) % 2 = 0),
    floor_min   smallint CHECK (floor_min BETWEEN -20 AND 200),
    floor_max   smallint CHECK (floor_max BETWEEN -20 AND 200),
    description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 2000),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CHECK ((floor_min IS NULL AND floor_max IS NULL) OR floor_min <= floor_max)
);

CREATE TABLE place_announcements (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    place      text NOT NULL REFERENCES places (slug) ON DELETE CASCADE,
    message    text NOT NULL CHECK (char_length(message) BETWEEN 1 AND 2000),
    created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    until      timestamptz NOT NULL
);
CREATE INDEX place_announcements_until_idx ON place_announcements (until);
CREATE INDEX place_announcements_place_idx ON place_announcements (place);

CREATE TABLE place_revision (
    single   boolean PRIMARY KEY DEFAULT true CHECK (single),
    revision bigint NOT NULL
);
INSERT INTO place_revision VALUES (true, 0);

ALTER TABLE audit_log DROP CONSTRAINT audit_log_action_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_action_check CHECK (action IN (
    'hide', 'restore', 'delete', 'auto_hide', 'beacon_put', 'beacon_delete',
    'place_put', 'place_delete', 'announcement_post', 'announcement_delete'));
