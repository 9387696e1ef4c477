"""A raw COPY of a posts CSV into a bare table (typed columns, no indexes, no triggers, logged), timed: the
floor the import is measured against. Connection from the PG* environment. Prints seconds."""
import subprocess
import sys
import time

path = sys.argv[1]
psql = ["psql", "-qAt", "-v", "ON_ERROR_STOP=1"]
with open(path) as f:
    header = f.readline().strip().split(",")
types = {"id": "bigint", "lat": "float8", "lon": "float8", "heading": "float8", "accuracy": "float8", "created_at": "timestamptz"}
columns = ", ".join(f'"{name}" {types.get(name, "text")}' for name in header)
subprocess.run(psql + ["-c", f"SET client_min_messages TO warning; DROP TABLE IF EXISTS raw_copy_bench; CREATE TABLE raw_copy_bench ({columns})"], check=True)
started = time.monotonic()
subprocess.run(psql + ["-c", f"\\copy raw_copy_bench FROM '{path}' WITH (FORMAT csv, HEADER true)"], check=True)
elapsed = time.monotonic() - started
subprocess.run(psql + ["-c", "DROP TABLE raw_copy_bench"], check=True)
print(f"{elapsed:.2f}")
