-- The posts: the store of record for every note ever left on the board.
-- Nothing is torn down: moderation changes `status`; deletion erases the message text only.
CREATE TABLE posts (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    lat         double precision NOT NULL CHECK (lat BETWEEN -90 AND 90),
    lon         double precision NOT NULL CHECK (lon BETWEEN -180 AND 180),
    heading     double precision CHECK (heading >= 0 AND heading < 360),
    message     text NOT NULL,
    tag         text NOT NULL CHECK (char_length(tag) BETWEEN 1 AND 80),
    -- Millisecond precision, assigned by the database clock so instances agree.
    created_at  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    accuracy    double precision CHECK (accuracy BETWEEN 0 AND 10000),
    floor       smallint CHECK (floor BETWEEN -20 AND 200),
    beacon      text,
    status      text NOT NULL DEFAULT 'visible' CHECK (status IN ('visible', 'hidden', 'deleted')),
    -- A keyed hash of the poster's address, so moderators can find posts from one client.
    client_hash text
);

CREATE INDEX posts_created_at_idx ON posts (created_at DESC, id DESC);
CREATE INDEX posts_client_hash_idx ON posts (client_hash);

-- Idempotency keys of POST /api/v1/posts, global scope, kept at least 24 hours.
CREATE TABLE idempotency_keys (
    key          text PRIMARY KEY CHECK (char_length(key) BETWEEN 1 AND 200),
    fingerprint  text NOT NULL,
    post_id      bigint REFERENCES posts (id),
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
