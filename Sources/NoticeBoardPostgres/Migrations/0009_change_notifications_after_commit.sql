-- Changes are still recorded in post_changes by statement triggers, but no longer announced
-- from inside the writing transaction: a NOTIFY takes one global lock at commit, which made
-- every posting transaction commit in single file. Writers announce after commit instead
-- (one NOTIFY for many changes), and followers also catch up by sequence on a timer.
CREATE OR REPLACE FUNCTION record_post_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO post_changes (post_id) SELECT id FROM changed_posts ORDER BY id;
    RETURN NULL;
END
$$;
