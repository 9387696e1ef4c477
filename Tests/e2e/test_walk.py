"""`GET /api/v1/walk`: a walker's WebSocket, checked against a brute-force oracle of the same
circle and cone at every step of a walk (turning on the spot, across the antimeridian)."""
import json
import random
import subprocess
import time

import requests
import websocket

from conftest import BINARY
from geo_oracle import bearing, difference, distance


def in_view(posts, update):
    """The oracle: the ids a walker at `update` sees, the 200 nearest (ties by id)."""
    radius = update.get("radius", 100)
    found = []
    for post in posts:
        d = distance(update["lat"], update["lon"], post["lat"], post["lon"])
        if d > radius:
            continue
        if "facing" in update and d > update.get("accuracy", 0):
            if difference(bearing(update["lat"], update["lon"], post["lat"], post["lon"]), update["facing"]) > update.get("fov", 60) / 2:
                continue
        found.append((d, post["id"]))
    return {post_id for _, post_id in sorted(found)[:200]}


class Walker:
    def __init__(self, server):
        self.socket = websocket.create_connection(server.url.replace("http", "ws", 1) + "/api/v1/walk", timeout=10)
        self.shown = {}

    def messages(self, quiet=0.4):
        """Every message until none arrives for `quiet` seconds."""
        received = []
        self.socket.settimeout(quiet)
        while True:
            try:
                received.append(json.loads(self.socket.recv()))
            except websocket.WebSocketTimeoutException:
                return received

    def step(self, update):
        self.socket.send(json.dumps(update))
        received = self.messages()
        for message in received:
            if message["type"] == "enter":
                assert message["post"]["id"] not in self.shown, f"entered twice: {message}"
                assert {"distance", "bearing", "message", "likeCount"} <= set(message["post"])
                self.shown[message["post"]["id"]] = message["post"]
            elif message["type"] == "leave":
                assert self.shown.pop(message["id"], None) is not None, f"left without entering: {message}"
        return received

    def close(self):
        self.socket.close()


def seed(server, centre_lat, centre_lon, count, spread, rng):
    posts = []
    for n in range(count):
        lon = centre_lon + rng.uniform(-spread, spread) * 2
        lon = lon - 360 if lon > 180 else lon + 360 if lon < -180 else lon
        response = server.post({"lat": centre_lat + rng.uniform(-spread, spread), "lon": lon, "message": f"note {n}", "tag": "food"})
        assert response.status_code == 201, response.text
        posts.append(response.json())
    return posts


def test_a_walk_sees_exactly_what_the_oracle_sees(server_factory):
    server = server_factory("--post-rate-per-minute", "0")
    rng = random.Random(20261124)
    posts = seed(server, 48.8566, 2.3522, 150, 0.003, rng) + seed(server, -16.5, 180, 80, 0.003, rng)
    walker = Walker(server)
    try:
        steps = []
        # A walk east through the city, with a cone, then turning on the spot.
        for k in range(8):
            steps.append({"lat": 48.8566 + 0.0004 * k, "lon": 2.3522 - 0.002 + 0.0006 * k, "radius": 150, "facing": (45 * k) % 360, "fov": 90})
        for facing in range(0, 360, 40):
            steps.append({"lat": 48.8570, "lon": 2.3525, "radius": 250, "facing": facing, "fov": 60, "accuracy": 30})
        steps.append({"lat": 48.8570, "lon": 2.3525, "radius": 500})
        # Across the antimeridian, circle only, then a cone looking back west.
        for k in range(6):
            lon = 179.997 + 0.0012 * k
            steps.append({"lat": -16.5, "lon": lon - 360 if lon > 180 else lon, "radius": 300})
        steps.append({"lat": -16.5, "lon": -179.999, "radius": 500, "facing": 270, "fov": 120})
        for update in steps:
            for message in walker.step(update):
                if message["type"] == "enter":
                    post = message["post"]
                    assert abs(post["distance"] - distance(update["lat"], update["lon"], post["lat"], post["lon"])) < 1e-6
                    assert difference(post["bearing"], bearing(update["lat"], update["lon"], post["lat"], post["lon"])) < 1e-6
            assert set(walker.shown) == in_view(posts, update), f"after {update}"
        # A note made in view enters by itself; one hidden leaves.
        walker.step({"lat": 48.8570, "lon": 2.3525, "radius": 100})
        made = server.post({"lat": 48.85701, "lon": 2.35251, "message": "just now", "tag": "food"}).json()
        arrived = walker.messages()
        assert [m["type"] for m in arrived] == ["enter"] and arrived[0]["post"]["id"] == made["id"]
        assert arrived[0]["post"]["distance"] < 2
        walker.shown[made["id"]] = arrived[0]["post"]
        assert server.post({"lat": 48.8700, "lon": 2.3525, "message": "far away", "tag": "food"}).status_code == 201
        assert walker.messages() == []
    finally:
        walker.close()


def test_bad_updates_get_an_error_and_the_socket_stays_open(server_factory):
    server = server_factory()
    walker = Walker(server)
    try:
        for update, field in [({"lat": 100, "lon": 0}, "lat"), ({"lat": 0}, "lon"), ({"lat": 0, "lon": 0, "radius": 501}, "radius"),
                              ({"lat": 0, "lon": 0, "facing": 360}, "facing"), ({"lat": 0, "lon": 0, "tag": [1]}, "tag"),
                              ({"lat": 0, "lon": 0, "fov": 0}, "fov")]:
            walker.socket.send(json.dumps(update))
            [message] = walker.messages()
            assert message["type"] == "error" and message["error"]["field"] == field and message["error"]["code"] == "invalid_request"
        walker.socket.send("not json")
        [message] = walker.messages()
        assert message["type"] == "error" and "field" not in message["error"]
        # More than ten updates a second: the rest are dropped, not queued. (A second of its own first.)
        time.sleep(1.1)
        for _ in range(30):
            walker.socket.send(json.dumps({"lat": 100, "lon": 0}))
        answered = walker.messages(quiet=0.6)
        assert 10 <= len(answered) <= 12, len(answered)
        time.sleep(1.1)  # the second of the dropped updates ends
        walker.step({"lat": 0, "lon": 0})  # still open and answering
    finally:
        walker.close()
    plain = requests.get(server.url + "/api/v1/walk", timeout=10)
    assert plain.status_code == 400 and plain.json()["error"]["code"] == "invalid_request"
