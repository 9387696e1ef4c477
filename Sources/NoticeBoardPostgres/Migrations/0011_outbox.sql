-- Webhooks, Web Push subscriptions and their outbox. One instance at a time turns post changes
-- into deliveries (the dispatch_cursor row, locked FOR UPDATE SKIP LOCKED); every instance sends
-- due deliveries under a lease, so each is sent by one instance and survives restarts.
CREATE TABLE webhooks (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url        text NOT NULL,
    secret     text NOT NULL,
    area       jsonb NOT NULL,
    tags       text[] NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    created_by text NOT NULL
);

CREATE TABLE push_subscriptions (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    device_hash text NOT NULL,
    endpoint    text NOT NULL,
    p256dh      bytea NOT NULL,
    auth        bytea NOT NULL,
    area        jsonb NOT NULL,
    tags        text[] NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp())
);

CREATE TABLE deliveries (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id     uuid NOT NULL UNIQUE,
    webhook_id      bigint REFERENCES webhooks (id) ON DELETE CASCADE,
    subscription_id bigint REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    event           text NOT NULL CHECK (event IN ('post.created', 'post.removed', 'push')),
    post_id         bigint NOT NULL,
    body            bytea NOT NULL,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'skipped', 'gone')),
    attempts        integer NOT NULL DEFAULT 0,
    last_error      text,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    last_attempt_at timestamptz,
    lease_until     timestamptz,
    CHECK ((webhook_id IS NULL) <> (subscription_id IS NULL)),
    UNIQUE (webhook_id, post_id, event),
    UNIQUE (subscription_id, post_id, event)
);

CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_post_idx ON deliveries (post_id);

-- Where dispatching stands in post_changes; it starts at the present, not the board's past.
CREATE TABLE dispatch_cursor (
    id        integer PRIMARY KEY CHECK (id = 1),
    watermark bigint NOT NULL
);
INSERT INTO dispatch_cursor SELECT 1, coalesce(max(seq), 0) FROM post_changes;

-- Secrets made once for the deployment (the VAPID key pair).
CREATE TABLE server_keys (
    name       text PRIMARY KEY,
    value      bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
