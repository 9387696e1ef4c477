-- A per-post version that every update raises, so an instance applies a post's states in the
-- order they were committed: a state read or returned before a later one never overwrites it.
ALTER TABLE posts ADD COLUMN version bigint NOT NULL DEFAULT 1;

CREATE FUNCTION raise_post_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.version := OLD.version + 1;
    RETURN NEW;
END
$$;

CREATE TRIGGER posts_versioned BEFORE UPDATE ON posts FOR EACH ROW EXECUTE FUNCTION raise_post_version();
