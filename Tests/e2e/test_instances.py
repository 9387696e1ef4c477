"""Two `noticeboard serve` processes on one database: each index follows the other's changes."""
import json
import os
import subprocess
import time

from conftest import BINARY
from test_stream import EventReader

AREA = {"lat": 48.8566, "lon": 2.3522, "radius": 1000}


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


def test_posts_hides_and_imports_reach_the_other_instance_within_a_second(server_factory, data_dir, tmp_path):
    first = server_factory()
    second = server_factory()  # the same data directory: it joins the first one's cluster
    stream_on_second = EventReader(second.url + "/api/v1/posts/stream", AREA)
    stream_on_first = EventReader(first.url + "/api/v1/posts/stream", AREA)
    time.sleep(0.3)
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
        added = subprocess.run([BINARY, "moderator", "add", "mod", "--data-dir", data_dir], input="mod-password-123\n",
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
        imported = subprocess.run([BINARY, "import", path, "--data-dir", data_dir], capture_output=True, text=True, timeout=120)
        assert imported.returncode == 0, imported.stderr
        for server in (first, second):
            count = lambda: server.get("/api/v1/tags", params={"bbox": "2,48,3,49"}).json()["tags"]
            assert wait_until(lambda: {"tag": "lifestyle", "count": 300} in count(), 1.5) is not None, count()
    finally:
        stream_on_first.close()
        stream_on_second.close()
        # The second only joined the cluster; the first owns it and stops it on exit.
        second.stop()
        first.stop()
