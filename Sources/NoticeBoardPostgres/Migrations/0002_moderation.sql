-- Moderators, their session tokens, public reports and the audit log.

CREATE TABLE moderators (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    username      text NOT NULL UNIQUE CHECK (char_length(username) BETWEEN 1 AND 100),
    -- bcrypt, cost 12 or more; the password itself is never stored.
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

-- Only a SHA-256 of each token is kept; a token dies with its moderator.
CREATE TABLE auth_tokens (
    token_hash   text PRIMARY KEY,
    moderator_id bigint NOT NULL REFERENCES moderators (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);

CREATE INDEX auth_tokens_expires_at_idx ON auth_tokens (expires_at);

-- One report per post and client address (as a keyed hash).
CREATE TABLE reports (
    post_id     bigint NOT NULL REFERENCES posts (id),
    client_hash text NOT NULL,
    reason      text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (post_id, client_hash)
);

-- Append-only: the application only inserts.
CREATE TABLE audit_log (
    id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at      timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
    actor   text NOT NULL,
    action  text NOT NULL CHECK (action IN ('hide', 'restore', 'delete', 'auto_hide', 'beacon_put', 'beacon_delete')),
    post_id bigint,
    reason  text
);

CREATE INDEX posts_status_idx ON posts (status);
