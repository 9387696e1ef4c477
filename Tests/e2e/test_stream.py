"""Server-Sent Events: /api/v1/posts/stream on the real binary."""
import queue
import socket
import threading
import time

import requests

from conftest import wait_for_streams


class EventReader:
    """Reads an SSE stream on a thread; events arrive on a queue as dicts (id, event, data)."""

    def __init__(self, url, params, headers=None):
        self.events = queue.Queue()
        self.comments = []
        self.ended = threading.Event()
        self.response = requests.get(url, params=params, headers=headers or {}, stream=True, timeout=(5, 60))
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        event = {}
        try:
            for raw in self.response.iter_lines(decode_unicode=True):
                if raw == "":
                    if "data" in event:
                        event["received"] = time.monotonic()
                        self.events.put(event)
                    event = {}
                elif raw.startswith(":"):
                    self.comments.append(raw)
                else:
                    key, _, value = raw.partition(":")
                    event[key] = value[1:] if value.startswith(" ") else value
        except Exception:
            pass
        finally:
            self.ended.set()

    def next(self, timeout=5):
        return self.events.get(timeout=timeout)

    def none_within(self, seconds):
        try:
            self.events.get(timeout=seconds)
            return False
        except queue.Empty:
            return True

    def close(self):
        """Hangs up at once (closing the response would wait for the reader's next chunk)."""
        connection = getattr(self.response.raw, "connection", None) or getattr(self.response.raw, "_connection", None)
        sock = getattr(connection, "sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            except OSError:
                pass


def test_a_new_post_in_the_area_arrives_with_distance_and_bearing(server_factory):
    server = server_factory()
    near = EventReader(server.url + "/api/v1/posts/stream", {"lat": 22.3, "lon": 114.2, "radius": 500})
    boxed = EventReader(server.url + "/api/v1/posts/stream", {"bbox": "114,22,115,23", "tag": "Food"})
    far = EventReader(server.url + "/api/v1/posts/stream", {"lat": -33.9, "lon": 18.4, "radius": 500})
    assert near.response.status_code == 200
    assert near.response.headers["Content-Type"].startswith("text/event-stream")
    wait_for_streams(server, 3)
    created = server.post({"lat": 22.301, "lon": 114.2, "message": "hello <b>live</b>", "tag": "food"}).json()
    server.post({"lat": 22.301, "lon": 114.2, "message": "other tag", "tag": "fashion"})

    event = near.next()
    assert event["event"] == "post" and int(event["id"]) > 0
    import json
    data = json.loads(event["data"])
    assert data["id"] == created["id"] and data["message"] == "hello <b>live</b>"
    assert 100 < data["distance"] < 120 and abs(data["bearing"]) < 1e-6
    assert json.loads(near.next()["data"])["tag"] == "fashion"

    boxed_event = json.loads(boxed.next()["data"])
    assert boxed_event["id"] == created["id"] and "distance" not in boxed_event
    assert boxed.none_within(0.5), "the box stream asked for food only"
    assert far.none_within(0.5), "a stream elsewhere hears nothing"
    for reader in (near, boxed, far):
        reader.close()


def test_reconnecting_with_last_event_id_resumes_without_gaps(server_factory):
    server = server_factory()
    params = {"lat": 10, "lon": 10, "radius": 1000}
    first = EventReader(server.url + "/api/v1/posts/stream", params)
    wait_for_streams(server, 1)
    server.post({"lat": 10, "lon": 10, "message": "one", "tag": "a"})
    last_seen = first.next()["id"]
    first.close()
    # Posted while the client was away.
    missed = [server.post({"lat": 10, "lon": 10, "message": f"missed {i}", "tag": "a"}).json()["id"] for i in range(3)]
    resumed = EventReader(server.url + "/api/v1/posts/stream", params, headers={"Last-Event-ID": last_seen})
    import json
    got = [json.loads(resumed.next()["data"])["id"] for _ in missed]
    assert got == missed
    resumed.close()


def test_a_resume_that_missed_too_much_is_told_to_reload(server_factory):
    """Contract 1.2: an id the server cannot replay from (here from before it started, as
    `Last-Event-ID: 0` is) gets `event: reset` with an id to resume from, not megabytes; a
    resume from that id then replays what came after it."""
    server = server_factory("--post-rate-per-minute", "0")
    for i in range(5):
        server.post({"lat": 10, "lon": 10, "message": f"before {i}", "tag": "a"})
    params = {"lat": 10, "lon": 10, "radius": 1000}
    reset = EventReader(server.url + "/api/v1/posts/stream", params, headers={"Last-Event-ID": "0"})
    event = reset.next()
    assert event["event"] == "reset" and event["data"] == "" and event["id"], event
    assert reset.none_within(0.5), "the reset was followed by a replay"
    reset.close()
    after = server.post({"lat": 10, "lon": 10, "message": "after the reset", "tag": "a"}).json()["id"]
    resumed = EventReader(server.url + "/api/v1/posts/stream", params, headers={"Last-Event-ID": event["id"]})
    import json
    replayed = resumed.next()
    assert replayed["event"] == "post" and json.loads(replayed["data"])["id"] == after
    resumed.close()


def test_stream_parameters_are_validated_like_nearby(server_factory):
    server = server_factory()
    for params, field in [({"lat": 1}, "lon"), ({}, "lat"), ({"lat": 1, "lon": 2, "radius": 0}, "radius"),
                          ({"bbox": "1,2,3"}, "bbox"), ({"lat": 1, "lon": 2, "tag": "bad!"}, "tag")]:
        response = server.get("/api/v1/posts/stream", params=params)
        assert response.status_code == 400, params
        assert response.json()["error"]["field"] == field


def test_shutdown_with_an_open_stream_is_graceful(embedded_server_factory, data_dir):
    from conftest import cluster_running
    server = embedded_server_factory()
    reader = EventReader(server.url + "/api/v1/posts/stream", {"lat": 1, "lon": 1})
    wait_for_streams(server, 1)
    started = time.time()
    assert server.stop(timeout=30) == 0
    assert time.time() - started < 20
    assert not cluster_running(data_dir)
    reader.close()


def test_sigterm_lets_requests_in_flight_finish(server_factory):
    """Posts racing a SIGTERM: each either gets its 201 (and is kept) or never reached the server."""
    import concurrent.futures
    import signal
    server = server_factory("--post-rate-per-minute", "0")
    stop = threading.Event()

    def post_until_stopped(worker):
        created, refused = [], 0
        session = requests.Session()
        for index in range(10_000):
            if stop.is_set():
                break
            try:
                response = session.post(server.url + "/api/v1/posts", json={"lat": 5, "lon": 5, "message": f"{worker}-{index}", "tag": "t"}, timeout=30)
                assert response.status_code in (201, 503), response.text
                if response.status_code == 201:
                    created.append(response.json()["id"])
            except requests.ConnectionError:
                refused += 1
                break
        return created, refused

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(post_until_stopped, worker) for worker in range(8)]
        time.sleep(1.0)
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(60) == 0
        stop.set()
        results = [future.result() for future in futures]
    created = [post_id for ids, _ in results for post_id in ids]
    assert len(created) > 10
    restarted = server_factory()
    stored = set()
    cursor = None
    for _ in range(1000):  # far more pages than posts were made: paging must end
        page = restarted.get("/api/v1/posts", params={"limit": 500, **({"cursor": cursor} if cursor else {})}).json()
        stored |= {post["id"] for post in page["posts"]}
        cursor = page["nextCursor"]
        if not cursor:
            break
    assert cursor is None, "paging did not end"
    assert set(created) <= stored
