"""The outbox under contention: every removal of a delivered note is delivered, whatever the
interleaving of hides and sends (ten hides at once, two busy loops beside the server); a
receiver that never answers delays only itself."""
import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from busy import BusyLoops
from conftest import HEAVY
from outbox_receivers import Receiver
from test_webhooks import create_webhook, note, token_for, verified

pytestmark = HEAVY

RUNS = int(os.environ.get("NOTICEBOARD_REMOVAL_RUNS", "20"))


def test_every_removal_is_delivered_under_ten_concurrent_hides_and_busy_loops(server_factory, database_url):
    receiver = Receiver()
    server = server_factory("--webhook-allow-host", "127.0.0.1", "--post-rate-per-minute", "0")
    token = token_for(server, database_url)
    auth = {"Authorization": f"Bearer {token}"}
    assert create_webhook(server, token, receiver.url).status_code == 201
    lost = []
    try:
        with BusyLoops(2), ThreadPoolExecutor(10) as pool:
            for run in range(RUNS):
                posts = [server.post(note(f"{run}-{i}")).json()["id"] for i in range(10)]

                def created(r):
                    return set(posts) <= {c["json"]["post"]["id"] for c in r.accepted() if c["json"]["event"] == "post.created"}
                # Hides race the sends: half the runs hide as soon as the first creation arrives.
                if run % 2 == 0:
                    assert receiver.wait_for(created, 60), f"run {run}: not every post.created arrived"
                else:
                    receiver.wait_for(lambda r: any(c["json"]["post"]["id"] in posts for c in r.accepted()), 60)
                hides = list(pool.map(lambda id: server.post_json(f"/api/v1/moderation/posts/{id}/hide", {"reason": "race"},
                                                                 headers=auth).status_code, posts))
                assert hides == [200] * 10, hides

                def settled(r):
                    told = {c["json"]["post"]["id"] for c in r.accepted() if c["json"]["event"] == "post.created"}
                    removed = {c["json"]["post"]["id"] for c in r.accepted() if c["json"]["event"] == "post.removed"}
                    return (told & set(posts)) <= removed
                receiver.wait_for(settled, 60)
                accepted = [verified(c) for c in receiver.accepted()]
                told = {b["post"]["id"] for b in accepted if b["event"] == "post.created"} & set(posts)
                removed = {b["post"]["id"] for b in accepted if b["event"] == "post.removed"}
                lost += [(run, id) for id in told - removed]
                # A removal never arrives for a post the receiver was not told of.
                assert not (removed & set(posts)) - told, f"run {run}: a removal without its creation"
        assert not lost, f"{len(lost)} removals lost of posts the receiver was told of: {lost}"
        # Removals follow their creation: no removal arrives before the post.created it ends.
        seen = set()
        for call in receiver.accepted():
            body = call["json"]
            if body["event"] == "post.created":
                seen.add(body["post"]["id"])
            else:
                assert body["post"]["id"] in seen, "post.removed arrived before its post.created"
    finally:
        receiver.close()


class HungReceiver:
    """Accepts connections and requests and never answers (until closed)."""

    def __init__(self):
        self.released = threading.Event()
        self.calls = 0
        hung = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                hung.calls += 1
                hung.released.wait(60)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


def test_a_receiver_that_never_answers_delays_only_itself(server_factory, database_url):
    healthy = Receiver()
    hung = HungReceiver()
    server = server_factory("--webhook-allow-host", "127.0.0.1", "--post-rate-per-minute", "0")
    token = token_for(server, database_url)
    try:
        assert create_webhook(server, token, hung.url + "/hook").status_code == 201
        assert create_webhook(server, token, healthy.url + "/hook").status_code == 201
        posted = {}
        for i in range(40):
            response = server.post(note(i))
            posted[response.json()["id"]] = time.time()
            time.sleep(0.05)
        assert healthy.wait_for(lambda r: set(posted) <= {c["json"]["post"]["id"] for c in r.accepted()}, 30), \
            f"the healthy receiver got {len(healthy.accepted())} of {len(posted)}"
        delays = sorted(c["at"] - posted[json.loads(c["body"])["post"]["id"]] for c in healthy.snapshot())
        median = delays[len(delays) // 2]
        print(f"healthy receiver beside a hung one: median {median:.2f} s, max {delays[-1]:.2f} s; hung receiver took {hung.calls} calls")
        assert median < 2.5, f"median delivery {median:.2f} s beside a hung receiver"
        assert hung.calls >= 1, "the hung receiver was never called: the test proves nothing"
    finally:
        hung.close()
        healthy.close()
