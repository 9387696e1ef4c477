-- A post that expires changes no row, so the outbox finds expired posts by time: how far it has
-- looked (expiry instant, then id; from the start, so posts that ended before this migration
-- are removals too), and an index to look on from there.
ALTER TABLE dispatch_cursor
    ADD COLUMN expired_through    timestamptz NOT NULL DEFAULT '-infinity',
    ADD COLUMN expired_through_id bigint NOT NULL DEFAULT 0;
CREATE INDEX posts_expiry_idx ON posts (expires_at, id) WHERE expires_at IS NOT NULL;
