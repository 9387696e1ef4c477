"""PostgreSQL's own cost of holding an imported board, without the importer: the rows the import
stored in `posts`, copied out and then timed back in with COPY into a table of the same shape
(columns, defaults, checks, identity and primary key; no trigger), then its secondary indexes
built as `posts` has them. Run after an import, connection from the PG* environment.
Prints "COPY_SECONDS INDEX_SECONDS"."""
import os
import subprocess
import tempfile
import time

psql = ["psql", "-qAt", "-v", "ON_ERROR_STOP=1"]
columns = "lat, lon, heading, message, tag, created_at, accuracy, floor, beacon, status, import_key, expires_at"


def run(sql):
    return subprocess.run(psql + ["-c", sql], check=True, capture_output=True, text=True).stdout


with tempfile.TemporaryDirectory() as scratch:
    rows = os.path.join(scratch, "posts.copy")
    run(f"\\copy (SELECT {columns} FROM posts ORDER BY id) TO '{rows}'")
    run("SET client_min_messages TO warning; DROP TABLE IF EXISTS posts_floor; "
        "CREATE TABLE posts_floor (LIKE posts INCLUDING ALL EXCLUDING INDEXES); ALTER TABLE posts_floor ADD PRIMARY KEY (id)")
    indexes = [line for line in run(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'posts' AND indexname <> 'posts_pkey'"
    ).splitlines() if line]
    started = time.monotonic()
    run(f"\\copy posts_floor ({columns}) FROM '{rows}'")
    copied = time.monotonic() - started
    started = time.monotonic()
    for definition in indexes:
        name = definition.split(" INDEX ", 1)[1].split(" ON ", 1)[0]
        run(definition.replace(f" INDEX {name} ON public.posts ", f" INDEX floor_{name} ON public.posts_floor ", 1))
    indexed = time.monotonic() - started
    run("DROP TABLE posts_floor")
print(f"{copied:.2f} {indexed:.2f}")
