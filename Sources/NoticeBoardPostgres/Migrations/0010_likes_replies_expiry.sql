-- Devices, likes, replies and lifetimes (API 1.1). Counts live on the post row, raised and
-- lowered in the transaction that changes a like or a reply, so every instance reads them with
-- the post (the change trigger records the update like any other).
ALTER TABLE posts
    ADD COLUMN expires_at  timestamptz,
    -- A keyed hash of the device key the post was made with: answers `mine` and author deletes.
    ADD COLUMN device_hash text,
    ADD COLUMN like_count  integer NOT NULL DEFAULT 0 CHECK (like_count >= 0),
    ADD COLUMN reply_count integer NOT NULL DEFAULT 0 CHECK (reply_count >= 0);

-- One like per device and post.
CREATE TABLE likes (
    post_id     bigint NOT NULL REFERENCES posts (id),
    device_hash text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    PRIMARY KEY (post_id, device_hash)
);

CREATE INDEX likes_device_idx ON likes (device_hash, post_id);
CREATE INDEX likes_created_at_idx ON likes (created_at);

CREATE TABLE replies (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    post_id     bigint NOT NULL REFERENCES posts (id),
    message     text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    status      text NOT NULL DEFAULT 'visible' CHECK (status IN ('visible', 'hidden', 'deleted')),
    device_hash text,
    client_hash text
);

CREATE INDEX replies_thread_idx ON replies (post_id, created_at, id);
CREATE INDEX replies_created_at_idx ON replies (created_at DESC, id DESC);

-- One report per reply and client address.
CREATE TABLE reply_reports (
    reply_id    bigint NOT NULL REFERENCES replies (id),
    client_hash text NOT NULL,
    reason      text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (reply_id, client_hash)
);

-- A reply's idempotency key shares the global key space with posts'.
ALTER TABLE idempotency_keys ADD COLUMN reply_id bigint REFERENCES replies (id);

-- A new reply is announced to other instances through the change feed, beside its post.
ALTER TABLE post_changes ADD COLUMN reply_id bigint;

ALTER TABLE audit_log ADD COLUMN reply_id bigint;
ALTER TABLE audit_log DROP CONSTRAINT audit_log_action_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_action_check CHECK (action IN (
    'hide', 'restore', 'delete', 'auto_hide', 'beacon_put', 'beacon_delete',
    'place_put', 'place_delete', 'announcement_post', 'announcement_delete', 'author_delete'));
