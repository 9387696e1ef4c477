-- Each change records the server process that made it (the `noticeboard.origin` setting its
-- connections start with), so a follower skips reading back the posts of its own changes: it
-- applied them when it made them. Rows from before, imports and psql have no origin.
ALTER TABLE post_changes ADD COLUMN origin text;
ALTER TABLE post_changes ALTER COLUMN origin SET DEFAULT current_setting('noticeboard.origin', true);
