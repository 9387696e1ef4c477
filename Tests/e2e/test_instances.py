"""Two `noticeboard serve` processes on one database: each index follows the other's changes."""
import json
import os
import subprocess
import time

import requests

from conftest import BINARY, HEAVY, wait_for_streams
from test_stream import EventReader

pytestmark = HEAVY

AREA = {"lat": 48.8566, "lon": 2.3522, "radius": 1000}


def run_import(path, database_url, timeout):
    """`noticeboard import` of a CSV into the shared database, its output kept for the assertions."""
    return subprocess.run([BINARY, "import", path, "--database-url", database_url], capture_output=True, text=True, timeout=timeout)

def wait_until(predicate, limit):
    """Seconds until `predicate()` holds, or None after `limit` seconds."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if predicate():
            return time.monotonic() - started
        time.sleep(0.02)
    return None


def nearby_ids(server):
    return {post["id"] for post in server.get("/api/v1/posts/nearby", params=AREA).json()["posts"]}


def test_posts_hides_and_imports_reach_the_other_instance_within_a_second(server_factory, database_url, tmp_path):
    first = server_factory()
    second = server_factory()  # the same database: it hears the first one's changes
    stream_on_second = EventReader(second.url + "/api/v1/posts/stream", AREA)
    stream_on_first = EventReader(first.url + "/api/v1/posts/stream", AREA)
    wait_for_streams(first, 1)
    wait_for_streams(second, 1)
    try:
        created = first.post({"lat": 48.857, "lon": 2.352, "message": "made on the first", "tag": "food"})
        assert created.status_code == 201
        post_id = created.json()["id"]
        seen = wait_until(lambda: second.get(f"/api/v1/posts/{post_id}").status_code == 200, 1.0)
        assert seen is not None, "the post did not reach the second instance within 1 s"
        assert post_id in nearby_ids(second)
        event = stream_on_second.next(timeout=2)
        assert event["event"] == "post" and json.loads(event["data"])["id"] == post_id
        assert "distance" in json.loads(event["data"])

        # A moderator hides it on the second instance: the first stops serving it and its streams hear.
        added = subprocess.run([BINARY, "moderator", "add", "mod", "--database-url", database_url], input="mod-password-123\n",
                               capture_output=True, text=True, timeout=120)
        assert added.returncode == 0, added.stderr
        token = second.post_json("/api/v1/auth/token", {"username": "mod", "password": "mod-password-123"}).json()["token"]
        hidden = second.post_json(f"/api/v1/moderation/posts/{post_id}/hide", {"reason": "test"},
                                  headers={"Authorization": f"Bearer {token}"})
        assert hidden.status_code == 200
        gone = wait_until(lambda: post_id not in nearby_ids(first), 1.0)
        assert gone is not None, "the hide did not reach the first instance within 1 s"
        assert first.get(f"/api/v1/posts/{post_id}").status_code == 404
        events = [stream_on_first.next(timeout=2) for _ in range(2)]
        assert [event["event"] for event in events] == ["post", "remove"]
        assert json.loads(events[1]["data"])["id"] == post_id

        # An import into the running board shows on both instances.
        path = os.path.join(tmp_path, "more.csv")
        with open(path, "w") as handle:
            handle.write("lat,lon,message,tag,createdAt\n")
            for index in range(300):
                handle.write(f"48.8566,2.35{index:03d},imported {index},lifestyle,2020-01-01T00:00:00Z\n")
        imported = run_import(path, database_url, timeout=120)
        assert imported.returncode == 0, imported.stderr
        for server in (first, second):
            count = lambda: server.get("/api/v1/tags", params={"bbox": "2,48,3,49"}).json()["tags"]
            assert wait_until(lambda: {"tag": "lifestyle", "count": 300} in count(), 1.5) is not None, count()
    finally:
        stream_on_first.close()
        stream_on_second.close()
        # Stopped here, after their streams, rather than by the fixture.
        second.stop()
        first.stop()


def all_ids_in_box(server, bbox):
    """Every visible post in the box, through browse's pages."""
    ids, cursor = set(), None
    for _ in range(100):
        params = {"bbox": bbox, "limit": 100, "fields": "id"}
        if cursor:
            params["cursor"] = cursor
        page = server.get("/api/v1/posts", params=params).json()
        ids |= {post["id"] for post in page["posts"]}
        cursor = page.get("nextCursor")
        if not cursor:
            return ids
    raise AssertionError("browse did not end within 100 pages")


def test_concurrent_posts_on_two_instances_leave_both_indexes_equal_to_the_database(server_factory, database_url):
    """Writers on both instances at once (some with idempotency keys, some retried), a moderator
    hiding some on each: every acknowledged post reaches the other instance (the arrival on its
    stream is timed), and both indexes end equal to what the database holds."""
    import random
    import threading
    import uuid

    first = server_factory("--post-rate-per-minute", "0")
    second = server_factory("--post-rate-per-minute", "0")
    bbox = "2.30,48.80,2.40,48.90"
    streams = {"first": EventReader(first.url + "/api/v1/posts/stream", {"bbox": bbox}),
               "second": EventReader(second.url + "/api/v1/posts/stream", {"bbox": bbox})}
    wait_for_streams(first, 1)
    wait_for_streams(second, 1)
    acknowledged = {}  # id → (instance name, monotonic time of the 201)
    lock = threading.Lock()
    errors = []

    def writer(server, name, seed):
        chance = random.Random(seed)
        for index in range(50):
            body = {"lat": 48.80 + chance.random() * 0.1, "lon": 2.30 + chance.random() * 0.1,
                    "message": f"{name} {seed} {index}", "tag": chance.choice(["food", "music"])}
            headers = {"Idempotency-Key": str(uuid.uuid4())} if index % 3 == 0 else {}
            response = server.post(body, headers=headers)
            if response.status_code != 201:
                errors.append((response.status_code, response.text))
                continue
            with lock:
                acknowledged[response.json()["id"]] = (name, time.monotonic())
            if headers:  # a retry of the same request creates nothing
                again = server.post(body, headers=headers)
                if again.status_code != 200 or again.json()["id"] != response.json()["id"]:
                    errors.append(("retry", again.status_code, again.text))

    threads = [threading.Thread(target=writer, args=(server, name, seed))
               for seed, (server, name) in enumerate([(first, "first"), (second, "second")] * 4)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not any(thread.is_alive() for thread in threads), "writers did not finish"
        assert errors == []
        assert len(acknowledged) == 400

        # Both instances hold every post before any is hidden (a post hidden before the other
        # instance applied it would never be announced there as new).
        for server in (first, second):
            assert wait_until(lambda: all_ids_in_box(server, bbox) == set(acknowledged), 3.0) is not None, "a post did not reach an instance"

        # Hides on both instances, after the writes.
        added = subprocess.run([BINARY, "moderator", "add", "mod", "--database-url", database_url], input="mod-password-123\n",
                               capture_output=True, text=True, timeout=120)
        assert added.returncode == 0, added.stderr
        hidden = sorted(acknowledged)[::25]
        for index, post_id in enumerate(hidden):
            server = (first, second)[index % 2]
            token = server.post_json("/api/v1/auth/token", {"username": "mod", "password": "mod-password-123"}).json()["token"]
            response = server.post_json(f"/api/v1/moderation/posts/{post_id}/hide", {"reason": "test"},
                                        headers={"Authorization": f"Bearer {token}"})
            assert response.status_code == 200, response.text

        # The database's own answer, read by another process.
        exported = subprocess.run([BINARY, "export", "--visible-only", "--database-url", database_url], capture_output=True, text=True, timeout=120)
        assert exported.returncode == 0, exported.stderr
        in_database = {json.loads(line)["id"] for line in exported.stdout.splitlines()}
        assert in_database == set(acknowledged) - set(hidden)
        for server in (first, second):
            assert wait_until(lambda: all_ids_in_box(server, bbox) == in_database, 3.0) is not None, "an index differs from the database"

        # Each post made on one instance, as heard on the other's stream: every one arrives.
        lags = []
        for name, other in (("first", "second"), ("second", "first")):
            heard = {}
            while True:
                try:
                    event = streams[other].events.get(timeout=2)
                except Exception:
                    break
                if event["event"] == "post":
                    heard.setdefault(json.loads(event["data"])["id"], event["received"])
            made_here = {post_id: at for post_id, (maker, at) in acknowledged.items() if maker == name}
            assert set(made_here) <= set(heard), f"{len(set(made_here) - set(heard))} posts made on {name} never reached {other}'s stream"
            lags += [max(0.0, heard[post_id] - at) for post_id, at in made_here.items()]
        lags.sort()
        p50, p99 = lags[len(lags) // 2], lags[int(len(lags) * 0.99)]
        print(f"posts on two instances: {len(acknowledged)} acknowledged, {len(hidden)} hidden; both indexes equal the database; "
              f"heard on the other instance after the 201: p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, max {lags[-1] * 1000:.0f} ms")
        assert lags[-1] < 3.0, "a post took more than 3 s to reach the other instance"

    finally:
        for stream in streams.values():
            stream.close()


def test_likes_replies_and_author_deletes_reach_the_other_instance_within_a_second(server_factory, database_url):
    """Two instances on one database agree on like and reply counts within a second, the other
    instance's streams hear a reply (and hear it hidden and restored by a moderator on the first),
    and the popular order on both reflects every like."""
    first = server_factory("--like-rate-per-minute", "0")
    second = server_factory("--like-rate-per-minute", "0")
    stream_on_second = EventReader(second.url + "/api/v1/posts/stream", AREA)
    wait_for_streams(second, 1)
    try:
        author = {"X-Device-Key": "author-device-000000001"}
        created = first.post({"lat": 48.857, "lon": 2.352, "message": "like me", "tag": "food"}, headers=author)
        other = first.post({"lat": 48.857, "lon": 2.3521, "message": "quiet one", "tag": "food"})
        post_id, other_id = created.json()["id"], other.json()["id"]
        assert wait_until(lambda: second.get(f"/api/v1/posts/{other_id}").status_code == 200, 1.0) is not None

        # 30 devices like the note, half of them on each instance, at once.
        import concurrent.futures

        def like(n):
            server = first if n % 2 else second
            return requests.put(f"{server.url}/api/v1/posts/{post_id}/like",
                                headers={"X-Device-Key": f"liker-device-{n:012d}"}, timeout=30).status_code

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            assert set(pool.map(like, range(30))) == {200}

        def count_on(server, key="likeCount"):
            return server.get(f"/api/v1/posts/{post_id}").json()[key]

        agreed = wait_until(lambda: count_on(first) == 30 and count_on(second) == 30, 1.0)
        assert agreed is not None, f"like counts {count_on(first)} and {count_on(second)} after 1 s"
        for server in (first, second):
            popular = server.get("/api/v1/posts/nearby", params={**AREA, "order": "popular"}).json()
            assert [post["id"] for post in popular["posts"]][:2] == [post_id, other_id] and "asOf" in popular

        reply = first.post_json(f"/api/v1/posts/{post_id}/replies", {"message": "the author again"}, headers=author)
        assert reply.status_code == 201 and reply.json()["byAuthor"] is True
        assert wait_until(lambda: count_on(second, "replyCount") == 1, 1.0) is not None
        events = []
        while not events or events[-1]["event"] != "reply":
            events.append(stream_on_second.next(timeout=2))
        heard = json.loads(events[-1]["data"])
        assert heard["id"] == reply.json()["id"] and heard["postId"] == post_id and heard["byAuthor"] is True
        thread = second.get(f"/api/v1/posts/{post_id}/replies").json()["replies"]
        assert [item["id"] for item in thread] == [reply.json()["id"]]

        # A moderator hides the reply on the first instance: the second's streams hear it leave, then return.
        added = subprocess.run([BINARY, "moderator", "add", "mod", "--database-url", database_url], input="mod-password-123\n",
                               capture_output=True, text=True, timeout=120)
        assert added.returncode == 0, added.stderr
        moderator = {"Authorization": "Bearer " + first.post_json(
            "/api/v1/auth/token", {"username": "mod", "password": "mod-password-123"}).json()["token"]}
        reply_id = reply.json()["id"]
        assert first.post_json(f"/api/v1/moderation/replies/{reply_id}/hide", {"reason": "rude"}, headers=moderator).status_code == 200
        event = stream_on_second.next(timeout=2)
        assert event["event"] == "reply-remove", event
        assert json.loads(event["data"]) == {"id": reply_id, "postId": post_id, "replyCount": 0}
        assert second.get(f"/api/v1/posts/{post_id}/replies").json()["replies"] == []
        assert first.post_json(f"/api/v1/moderation/replies/{reply_id}/restore", {}, headers=moderator).status_code == 200
        event = stream_on_second.next(timeout=2)
        assert event["event"] == "reply" and json.loads(event["data"])["id"] == reply_id, event
        assert json.loads(event["data"])["replyCount"] == 1

        # The author deletes the note on the second instance: the first stops serving it at once.
        deleted = requests.delete(f"{second.url}/api/v1/posts/{post_id}", headers=author, timeout=30)
        assert deleted.status_code == 204
        assert wait_until(lambda: first.get(f"/api/v1/posts/{post_id}").status_code == 404, 1.0) is not None
    finally:
        stream_on_second.close()


def test_an_import_into_the_empty_board_reaches_both_running_instances(server_factory, database_url, tmp_path):
    """The bulk path (one transaction over an empty board, indexes built at its end) while two
    instances serve it: both show every imported post, a post sent meanwhile is either refused
    with 503 or kept, and the board takes posts afterwards."""
    import threading

    first = server_factory("--post-rate-per-minute", "0")
    second = server_factory("--post-rate-per-minute", "0")
    path = os.path.join(tmp_path, "board.csv")
    with open(path, "w") as handle:
        handle.write("id,lat,lon,message,tag,createdAt\n")
        for index in range(20000):
            handle.write(f"{index},48.{index % 1000:03d},2.{index // 1000:03d},bulk {index},lifestyle,2020-01-01T00:00:00Z\n")
    outcomes = []

    def post_meanwhile():
        for index in range(20):
            response = first.post({"lat": 48.5, "lon": 2.5, "message": f"meanwhile {index}", "tag": "food"})
            outcomes.append((response.status_code, response.json().get("id")))
            time.sleep(0.05)

    poster = threading.Thread(target=post_meanwhile)
    try:
        importer = subprocess.Popen([BINARY, "import", path, "--database-url", database_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # The import holds the posts table from its first moments, before it reads the file.
        time.sleep(0.5)
        poster.start()
        stdout, stderr = importer.communicate(timeout=300)
        poster.join(timeout=60)
        assert importer.returncode == 0, stderr
        assert "Imported 20000 posts" in stdout and "in one transaction" in stdout, stdout
        kept = [post_id for status, post_id in outcomes if status == 201]
        assert all(status in (201, 503) for status, _ in outcomes), outcomes
        for server in (first, second):
            count = lambda: {tag["tag"]: tag["count"] for tag in server.get("/api/v1/tags", params={"bbox": "1,47,4,50"}).json()["tags"]}
            assert wait_until(lambda: count().get("lifestyle") == 20000 and count().get("food", 0) == len(kept), 20) is not None, count()
        after = second.post({"lat": 48.5, "lon": 2.5, "message": "after the import", "tag": "food"})
        assert after.status_code == 201
        assert wait_until(lambda: first.get(f"/api/v1/posts/{after.json()['id']}").status_code == 200, 2) is not None
        again = run_import(path, database_url, timeout=300)
        assert "Imported 0 posts; 20000 were there already" in again.stdout, again.stdout
    finally:
        second.stop()
        first.stop()


def changes_applied(server):
    """Changes this instance's follower has applied, from its metrics."""
    for line in server.get("/metrics").text.splitlines():
        if line.startswith("noticeboard_changes_applied_total "):
            return float(line.split()[1])
    return 0


def test_a_server_started_just_after_an_import_loads_the_posts_and_replays_none_of_their_changes(server_factory, database_url, tmp_path):
    """An import's changes are all committed when it ends, so an instance started within the
    minute after it follows from its last change: it loads the posts once and replays nothing,
    and follows every later change exactly once."""
    path = os.path.join(tmp_path, "board.csv")
    with open(path, "w") as handle:
        handle.write("id,lat,lon,message,tag,createdAt\n")
        for index in range(20000):
            handle.write(f"{index},48.{index % 1000:03d},2.{index // 1000:03d},bulk {index},lifestyle,2020-01-01T00:00:00Z\n")
    imported = run_import(path, database_url, timeout=300)
    assert imported.returncode == 0 and "in one transaction" in imported.stdout, imported.stdout + imported.stderr
    server = server_factory()
    try:
        count = lambda tag: {entry["tag"]: entry["count"] for entry in server.get("/api/v1/tags", params={"bbox": "1,47,4,50"}).json()["tags"]}.get(tag, 0)
        assert count("lifestyle") == 20000
        # A few of the follower's ticks: none brings a change of the import.
        time.sleep(1.5)
        assert changes_applied(server) == 0
        # A later import into the board that has posts goes batch by batch, through the triggers.
        more = os.path.join(tmp_path, "more.csv")
        with open(more, "w") as handle:
            handle.write("id,lat,lon,message,tag,createdAt\n")
            for index in range(100):
                handle.write(f"more-{index},48.5,2.5,more {index},food,2020-01-01T00:00:00Z\n")
        added = run_import(more, database_url, timeout=300)
        assert "Imported 100 posts;" in added.stdout, added.stdout + added.stderr
        assert wait_until(lambda: count("food") == 100, 5) is not None, count("food")
        time.sleep(1)
        assert changes_applied(server) == 100
    finally:
        server.stop()
