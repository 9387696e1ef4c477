-- A change sequence number at or below which every change is committed. Numbers are taken
-- before commit, so an instance starting now normally follows from a minute back and replays
-- the rest; an import into the empty board writes its change rows while it holds posts and
-- post_changes (no other number outstanding) and records its last one here, so an instance
-- started right after it loads the imported posts instead of replaying a million changes.
CREATE TABLE settled_changes (
    id  integer PRIMARY KEY CHECK (id = 1),
    seq bigint NOT NULL
);
INSERT INTO settled_changes VALUES (1, 0);
