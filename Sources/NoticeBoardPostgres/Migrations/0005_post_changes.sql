-- Every committed change to a post (created, hidden, restored, deleted) gets a sequence
-- number, so each instance sharing the database can bring its index in step: a NOTIFY wakes
-- it at once, and the catch-up query by sequence loses nothing when a notification is missed.
-- Statement-level triggers with transition tables: a bulk import of a million rows records
-- its changes in one INSERT … SELECT, not a million trigger calls.
CREATE TABLE post_changes (
    seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    post_id    bigint NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX post_changes_changed_at_idx ON post_changes (changed_at);

CREATE FUNCTION record_post_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO post_changes (post_id) SELECT id FROM changed_posts ORDER BY id;
    PERFORM pg_notify('post_changes', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER posts_inserted AFTER INSERT ON posts
    REFERENCING NEW TABLE AS changed_posts FOR EACH STATEMENT EXECUTE FUNCTION record_post_changes();

CREATE TRIGGER posts_updated AFTER UPDATE ON posts
    REFERENCING NEW TABLE AS changed_posts FOR EACH STATEMENT EXECUTE FUNCTION record_post_changes();
