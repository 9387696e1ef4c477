-- Posts brought in by `noticeboard import` carry a key derived from their source row, so
-- re-running an import on the same file adds nothing. Posts made through the API have none.
ALTER TABLE posts ADD COLUMN import_key text UNIQUE;
