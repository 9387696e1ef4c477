"""Hide and restore of one post fired at once, on one instance and across two, under posting:
every instance's index ends where the database ends, within a second, every run."""
import os
import random
import subprocess
import threading
import time

import requests

from conftest import BINARY, HEAVY

pytestmark = HEAVY

RUNS = int(os.environ.get("NOTICEBOARD_RACE_RUNS", "200"))


def add_moderator(database_url):
    added = subprocess.run([BINARY, "moderator", "add", "racer", "--database-url", database_url], input="racer-password-1\n",
                           capture_output=True, text=True, timeout=120)
    assert added.returncode == 0, added.stderr


def token(server):
    response = server.post_json("/api/v1/auth/token", {"username": "racer", "password": "racer-password-1"})
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['token']}"}


class Poster:
    """Keeps posting elsewhere while the races run (the write load the races were seen under)."""

    def __init__(self, servers):
        self.stop = threading.Event()
        self.count = 0
        self.threads = [threading.Thread(target=self.run, args=(server,), daemon=True) for server in servers for _ in range(2)]
        for thread in self.threads:
            thread.start()

    def run(self, server):
        session = requests.Session()
        while not self.stop.is_set():
            session.post(server.url + "/api/v1/posts", json={"lat": -33.9, "lon": 151.2, "message": "load", "tag": "other"}, timeout=30)
            self.count += 1

    def close(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(30)


def database_status(server, auth, lat, lon):
    bbox = f"{lon - 0.00001},{lat - 0.00001},{lon + 0.00001},{lat + 0.00001}"
    posts = server.get("/api/v1/moderation/posts", params={"bbox": bbox, "status": "all"}, headers=auth).json()["posts"]
    assert len(posts) == 1, posts
    return posts[0]["status"]


def visible_on(server, post_id):
    return server.get(f"/api/v1/posts/{post_id}").status_code == 200


def race(servers, auths, seed):
    random.seed(seed)
    poster = Poster(servers)
    disagreements = []
    try:
        for run in range(RUNS):
            lat, lon = round(10 + run * 0.001, 5), round(20 + random.random(), 5)
            created = servers[0].post({"lat": lat, "lon": lon, "message": f"race {run}", "tag": "food"})
            assert created.status_code == 201, created.text
            post_id = created.json()["id"]
            # Half the runs start hidden, so both orders of the two actions matter.
            if run % 2:
                assert servers[0].post_json(f"/api/v1/moderation/posts/{post_id}/hide", {"reason": "start"}, headers=auths[0]).status_code == 200
            barrier = threading.Barrier(2)
            statuses = []

            def act(action, server, auth):
                barrier.wait(5)
                body = {"reason": "race"}
                statuses.append(server.post_json(f"/api/v1/moderation/posts/{post_id}/{action}", body, headers=auth).status_code)

            a, b = random.sample(range(len(servers)), 2) if len(servers) > 1 else (0, 0)
            threads = [threading.Thread(target=act, args=("hide", servers[a], auths[a])),
                       threading.Thread(target=act, args=("restore", servers[b], auths[b]))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(30)
            assert statuses == [200, 200], statuses
            stored = database_status(servers[0], auths[0], lat, lon)
            deadline = time.monotonic() + 1.0
            while True:
                agree = all(visible_on(server, post_id) == (stored == "visible") for server in servers)
                if agree or time.monotonic() > deadline:
                    break
                time.sleep(0.02)
            if not agree:
                disagreements.append((run, post_id, stored, [visible_on(server, post_id) for server in servers]))
    finally:
        poster.close()
    assert poster.count > 0
    return disagreements


def test_hide_and_restore_racing_on_one_instance_end_as_the_database_says(server_factory, database_url):
    server = server_factory("--post-rate-per-minute", "0")
    add_moderator(database_url)
    seed = random.randrange(1 << 30)
    print("seed", seed)
    disagreements = race([server], [token(server)], seed)
    assert disagreements == [], f"seed {seed}: {disagreements}"


def test_hide_and_restore_racing_on_two_instances_end_as_the_database_says(server_factory, database_url):
    first = server_factory("--post-rate-per-minute", "0")
    second = server_factory("--post-rate-per-minute", "0")
    add_moderator(database_url)
    seed = random.randrange(1 << 30)
    print("seed", seed)
    disagreements = race([first, second], [token(first), token(second)], seed)
    assert disagreements == [], f"seed {seed}: {disagreements}"
