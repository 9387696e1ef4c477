"""`noticeboard import` and `export` on the real binary and a real database."""
import json
import os
import subprocess
import time

from conftest import BINARY, Server, shared_postgres

ORIGINAL_BOARD = """pid,longitude,latitude,heading,msg,tag,pdate
1,114.20684,22.41961,360,"Too many things on my desk, ""again""
and a second line",LifeStyle,2019-05-12 13:45:12
2,114.2,99,90,latitude out of range,food,2019-05-12 13:45:12
3,114.2,22.4,10,no date,food,
4,-179.99,-16.5,,antimeridian,美食,2020-02-29T23:59:59.9999Z
5,114.2,22.4,10,<img src=x onerror=alert(1)>,food,1700000000
"""


def run(*args, database_url, stdin=None):
    return subprocess.run([BINARY, *args, "--database-url", database_url], capture_output=True, text=True, timeout=300, input=stdin)


def write(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w") as handle:
        handle.write(text)
    return path


def test_import_reports_bad_rows_by_line_keeps_times_and_is_idempotent(data_dir, database_url, tmp_path):
    path = write(tmp_path, "board.csv", ORIGINAL_BOARD)
    first = run("import", path, database_url=database_url)
    assert first.returncode == 2, first.stderr
    # The record of pid 2 starts on line 4 (the first record spans lines 2 and 3).
    assert "line 4: lat must be between -90 and 90" in first.stderr
    assert "line 5: createdAt is required" in first.stderr
    assert "Imported 3 posts" in first.stdout

    again = run("import", path, database_url=database_url)
    assert "Imported 0 posts; 3 were there already; 2 rows rejected" in again.stdout, again.stdout

    server = Server(data_dir, database_url=database_url)
    try:
        posts = server.get("/api/v1/posts?limit=500").json()["posts"]
        assert len(posts) == 3
        by_message = {post["message"]: post for post in posts}
        desk = by_message['Too many things on my desk, "again"\nand a second line']
        assert desk["createdAt"] == "2019-05-12T13:45:12.000Z"
        assert desk["heading"] == 0 and desk["tag"] == "lifestyle"
        assert by_message["antimeridian"]["createdAt"] == "2020-02-29T23:59:59.999Z"
        assert by_message["antimeridian"]["tag"] == "美食"
        assert by_message["<img src=x onerror=alert(1)>"]["createdAt"] == "2023-11-14T22:13:20.000Z"
        nearby = server.get("/api/v1/posts/nearby?lat=-16.5&lon=179.99&radius=5000").json()["posts"]
        assert [post["message"] for post in nearby] == ["antimeridian"]
    finally:
        server.stop()


def test_export_round_trips_through_import(database_url, tmp_path):
    lines = [
        {"id": 1, "lat": 48.8566, "lon": 2.3522, "heading": 12.5, "message": "tab\there\nand \\ backslash", "tag": "food",
         "createdAt": "2026-01-02T03:04:05.678Z", "accuracy": 8, "floor": 2, "status": "visible",
         "expiresAt": "2026-01-09T03:04:05.678Z",
         "replies": [{"message": "first \"quoted\"\tand\nnewline 美食", "createdAt": "2026-01-02T04:00:00.000Z"},
                     {"message": "hidden one", "createdAt": "2026-01-02T05:00:00.000Z", "status": "hidden"},
                     {"message": "last", "createdAt": "2026-01-03T00:00:00.001Z", "status": "visible"}]},
        {"id": 2, "lat": -89.9, "lon": 180, "heading": None, "message": "pole", "tag": "lifestyle",
         "createdAt": "2026-01-02T03:04:05.679Z", "status": "hidden"},
        {"id": 3, "lat": 0, "lon": 0, "message": "same text", "tag": "food", "createdAt": "2026-01-02T00:00:00Z"},
        {"id": 4, "lat": 0, "lon": 0, "message": "same text", "tag": "food", "createdAt": "2026-01-02T00:00:00Z"},
    ]
    source = write(tmp_path, "in.ndjson", "\n".join(json.dumps(line) for line in lines) + "\n")
    imported = run("import", source, database_url=database_url)
    assert imported.returncode == 0, imported.stderr
    assert "Imported 4 posts" in imported.stdout  # identical notes with distinct ids are both kept

    exported_path = os.path.join(tmp_path, "out.ndjson")
    exported = run("export", "--output", exported_path, database_url=database_url)
    assert exported.returncode == 0, exported.stderr
    first = [json.loads(line) for line in open(exported_path)]
    assert len(first) == 4
    assert [post["status"] for post in first] == ["visible", "hidden", "visible", "visible"]
    assert first[0]["message"] == "tab\there\nand \\ backslash"
    # The lifetime and the thread (visible and hidden replies, oldest first) come along.
    assert first[0]["expiresAt"] == "2026-01-09T03:04:05.678Z" and first[1]["expiresAt"] is None
    assert first[0]["replies"] == [{**reply, "status": reply.get("status", "visible")} for reply in lines[0]["replies"]]
    assert first[0]["replyCount"] == 2 and first[0]["likeCount"] == 0 and first[1]["replies"] == []

    # A second board in a directory the postgres user may enter (pytest's tmp_path is private).
    second_database = shared_postgres().create()
    try:
        assert run("import", exported_path, database_url=second_database).returncode == 0
        second = [json.loads(line) for line in run("export", database_url=second_database).stdout.splitlines()]
    finally:
        shared_postgres().drop(second_database)

    def without_ids(posts):
        return [{key: value for key, value in post.items() if key != "id"} for post in posts]

    assert without_ids(second) == without_ids(first)

    visible_only = run("export", "--visible-only", database_url=database_url).stdout.splitlines()
    assert len(visible_only) == 3


def test_a_file_without_a_usable_header_is_refused_plainly(database_url, tmp_path):
    """Into an empty board the import runs in one transaction; its own errors still read as its own."""
    path = write(tmp_path, "bad.csv", "lat,lon,message,createdAt\n1,2,hello,2020-01-01\n")
    result = run("import", path, database_url=database_url)
    assert result.returncode != 0
    assert "line 1: the header has no tag column" in result.stderr
    assert "unavailable" not in result.stderr, result.stderr
    again = run("import", write(tmp_path, "good.csv", "lat,lon,message,tag,createdAt\n1,2,hello,food,2020-01-01T00:00:00Z\n"), database_url=database_url)
    assert "Imported 1 posts (into the empty board" in again.stdout, again.stdout


COPYING = """SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE 'COPY "posts"%'"""


def query(database_url, statement):
    """One value from the test's database, through psql."""
    done = subprocess.run([shared_postgres().tool("psql"), "-X", "-Atc", statement, database_url], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_an_import_killed_half_way_leaves_nothing_and_the_next_one_loads_the_file(database_url, tmp_path):
    """Into the empty board: killed while its COPY is open, nothing of it is stored (no post, no
    change, no settled mark) and the board's indexes and change triggers are as they were."""
    path = os.path.join(tmp_path, "big.csv")
    with open(path, "w") as handle:
        handle.write("id,lat,lon,message,tag,createdAt\n")
        for index in range(300000):
            handle.write(f"{index},{index % 170 - 85}.{index % 9973:04d},{index % 350 - 175}.5,note {index},food,2020-01-01T00:00:00Z\n")
    shape = ("SELECT (SELECT string_agg(indexdef, ';' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'posts') || '|' || "
             "(SELECT string_agg(tgname::text || tgenabled::text, ',' ORDER BY tgname) FROM pg_trigger WHERE tgrelid = 'posts'::regclass)")
    before = query(database_url, shape)
    importer = subprocess.Popen([BINARY, "import", path, "--database-url", database_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # Killed once rows are streaming into the open COPY.
        deadline = time.monotonic() + 60
        while query(database_url, COPYING) != "1":
            assert importer.poll() is None and time.monotonic() < deadline, "the import's COPY never started"
            time.sleep(0.05)
        time.sleep(0.5)
        assert importer.poll() is None, "the import ended before it could be killed"
    finally:
        importer.kill()
        importer.communicate()
    # The server side of the killed connection rolls back as soon as it notices.
    deadline = time.monotonic() + 30
    while query(database_url, COPYING) != "0":
        assert time.monotonic() < deadline, "the killed import's COPY never ended"
        time.sleep(0.05)
    assert query(database_url, "SELECT (SELECT count(*) FROM posts) || ',' || (SELECT count(*) FROM post_changes) || ',' || "
                               "(SELECT seq FROM settled_changes)") == "0,0,0"
    assert query(database_url, shape) == before
    again = run("import", path, database_url=database_url)
    assert "Imported 300000 posts (into the empty board" in again.stdout, again.stdout + again.stderr
    # One change a post, numbered without a gap, all settled: a server starting now replays none of them.
    assert query(database_url, "SELECT count(*) || ',' || count(DISTINCT post_id) || ',' || (max(seq) - min(seq) + 1) || ',' || "
                               "(max(seq) = (SELECT seq FROM settled_changes)) FROM post_changes") == "300000,300000,300000,true"
    assert query(database_url, shape) == before
