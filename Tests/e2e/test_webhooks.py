"""Webhooks: signed at-least-once deliveries from the PostgreSQL outbox, checked by a receiver on
loopback: every matching post once after deduplicating by deliveryId, retries after 500s, removals,
nothing for a post hidden before it was delivered, the backlog after kill -9, one sender per
delivery with two instances, and the host policy against server-side request forgery."""
import hashlib
import hmac
import json
import signal
import subprocess
import time

import pytest
import requests

from conftest import BINARY
from outbox_receivers import Receiver

SECRET = "a-webhook-secret-of-some-length"
AREA = {"lat": 51.5072, "lon": -0.1276, "radius": 2000}


def token_for(server, database_url):
    added = subprocess.run([BINARY, "moderator", "add", "hooks", "--database-url", database_url], input="hooks-password-123\n",
                           capture_output=True, text=True, timeout=120)
    assert added.returncode == 0, added.stderr
    return server.post_json("/api/v1/auth/token", {"username": "hooks", "password": "hooks-password-123"}).json()["token"]


def create_webhook(server, token, url, **extra):
    body = {"url": url, "secret": SECRET, "area": AREA, **extra}
    return server.post_json("/api/v1/moderation/webhooks", body, headers={"Authorization": f"Bearer {token}"})


def note(i, tag="food", lat=51.5075, lon=-0.1280):
    return {"lat": lat, "lon": lon, "message": f"webhook note {i}", "tag": tag}


def verified(call):
    """The body as sent, after checking its signature over the exact bytes."""
    expected = "sha256=" + hmac.new(SECRET.encode(), call["body"], hashlib.sha256).hexdigest()
    assert call["headers"]["x-noticeboard-signature"] == expected, "the signature does not match the body"
    body = json.loads(call["body"])
    assert call["headers"]["x-noticeboard-delivery"] == body["deliveryId"]
    return body


def test_every_matching_post_once_signed_retried_and_removed(server_factory, database_url):
    receiver = Receiver()
    failing_until = [0.0]
    receiver.status_for = lambda path: 500 if time.monotonic() < failing_until[0] else 200
    server = server_factory("--webhook-allow-host", "127.0.0.1", "--post-rate-per-minute", "0")
    token = token_for(server, database_url)
    auth = {"Authorization": f"Bearer {token}"}
    try:
        # Refusals name their field; loopback and private hosts are refused unless allowed.
        for url, field in [("ftp://example.org/x", "url"), ("http://10.1.2.3/hook", "url"), ("http://localhost:9/x", "url"),
                           ("http://[::1]:9/x", "url"), ("http://192.168.0.7/x", "url"), ("http://user:pw@example.org/", "url")]:
            refused = create_webhook(server, token, url)
            assert refused.status_code == 400 and refused.json()["error"]["field"] == field, (url, refused.text)
        assert create_webhook(server, token, receiver.url, secret="short").json()["error"]["field"] == "secret"
        no_area = server.post_json("/api/v1/moderation/webhooks", {"url": receiver.url, "secret": SECRET}, headers=auth)
        assert no_area.status_code == 400 and no_area.json()["error"]["field"] == "area"
        assert create_webhook(server, token, receiver.url, area={"place": "nowhere"}).json()["error"]["field"] == "area.place"
        assert server.post_json("/api/v1/moderation/webhooks", {"url": receiver.url}).status_code == 401

        created = create_webhook(server, token, receiver.url + "/hook", tags=["food", "Sports"])
        assert created.status_code == 201, created.text
        hook = created.json()
        assert hook["tags"] == ["food", "sports"] and "secret" not in hook
        assert [h["id"] for h in server.get("/api/v1/moderation/webhooks", headers=auth).json()["webhooks"]] == [hook["id"]]

        failing_until[0] = time.monotonic() + 3
        matching = [server.post(note(i)).json()["id"] for i in range(6)]
        matching.append(server.post(note(6, tag="sports")).json()["id"])
        other_tag = server.post(note(7, tag="fashion")).json()["id"]
        far = server.post(note(8, lat=48.85, lon=2.35)).json()["id"]
        hidden_early = server.post(note(9)).json()["id"]
        hide = server.post_json(f"/api/v1/moderation/posts/{hidden_early}/hide", {"reason": "spam"}, headers=auth)
        assert hide.status_code == 200

        def all_created(r):
            ids = {verified(c)["post"]["id"] for c in r.accepted() if c["json"]["event"] == "post.created"}
            return set(matching) <= ids
        assert receiver.wait_for(all_created, 40), f"deliveries: {[(c['status'], c['body'][:80]) for c in receiver.snapshot()]}"
        time.sleep(1)  # duplicates and the deliveries that must not come would come within this
        accepted = [verified(c) for c in receiver.accepted()]
        by_delivery = {}
        for body in accepted:
            by_delivery.setdefault(body["deliveryId"], body)
        created_posts = sorted(b["post"]["id"] for b in by_delivery.values() if b["event"] == "post.created")
        assert created_posts == sorted(matching), "each matching post once after deduplicating by deliveryId"
        assert other_tag not in created_posts and far not in created_posts and hidden_early not in created_posts
        # The 500s were retried: the same delivery (same bytes) came again.
        failed_first = [c for c in receiver.snapshot() if c["status"] == 500]
        assert failed_first, "the receiver never answered 500: the retry path was not exercised"
        retried = {json.loads(c["body"])["deliveryId"] for c in failed_first} & set(by_delivery)
        assert retried, "no delivery answered 500 was delivered later"
        sample = by_delivery[next(iter(by_delivery))]["post"]
        assert {"id", "lat", "lon", "message", "tag", "createdAt"} <= set(sample)

        # Removing a delivered post sends post.removed with its id.
        removed_id = matching[0]
        assert server.post_json(f"/api/v1/moderation/posts/{removed_id}/hide", {"reason": "r"}, headers=auth).status_code == 200
        assert receiver.wait_for(lambda r: any(c["json"]["event"] == "post.removed" for c in r.accepted()), 10)
        removals = [verified(c) for c in receiver.accepted() if c["json"]["event"] == "post.removed"]
        assert [r["post"] for r in removals] == [{"id": removed_id}]
        assert hidden_early not in {json.loads(c["body"])["post"]["id"] for c in receiver.snapshot()}, \
            "a post hidden before its delivery was sent was delivered"

        # The history: newest first, the retried ones with more than one attempt, paged by cursor.
        history = server.get(f"/api/v1/moderation/webhooks/{hook['id']}/deliveries", params={"limit": 3}, headers=auth).json()
        assert len(history["deliveries"]) == 3 and history["nextCursor"]
        rest = server.get(f"/api/v1/moderation/webhooks/{hook['id']}/deliveries",
                          params={"limit": 100, "cursor": history["nextCursor"]}, headers=auth).json()
        entries = history["deliveries"] + rest["deliveries"]
        assert entries[0]["event"] == "post.removed"
        assert {e["deliveryId"] for e in entries if e["status"] == "delivered"} >= set(by_delivery)
        assert any(e["attempts"] >= 2 for e in entries), entries
        assert all({"deliveryId", "event", "postId", "attempts", "status", "lastError"} <= set(e) for e in entries)
        skipped = [e for e in entries if e["postId"] == hidden_early]
        assert all(e["status"] == "skipped" for e in skipped), skipped

        assert server.get("/api/v1/moderation/webhooks/999999/deliveries", headers=auth).status_code == 404
        assert server.get(f"/api/v1/moderation/webhooks/{hook['id']}/deliveries", params={"cursor": "nonsense"},
                          headers=auth).json()["error"]["field"] == "cursor"
        metrics = server.get("/metrics").text
        assert 'noticeboard_deliveries_total{kind="webhook",outcome="delivered"}' in metrics
        assert "noticeboard_outbox_pending" in metrics
        assert requests.delete(server.url + f"/api/v1/moderation/webhooks/{hook['id']}", headers=auth, timeout=10).status_code == 204
        assert requests.delete(server.url + f"/api/v1/moderation/webhooks/{hook['id']}", headers=auth, timeout=10).status_code == 404
        before = len(receiver.snapshot())
        server.post(note(20))
        time.sleep(1.5)  # a delivery to the deleted webhook would come within this
        assert len(receiver.snapshot()) == before, "a deleted webhook still received a post"
    finally:
        receiver.close()


def test_the_backlog_survives_kill_9_and_two_instances_send_each_delivery_once(server_factory, database_url):
    receiver = Receiver()
    receiver.status_for = lambda path: 503  # down: deliveries pile up in the outbox
    first = server_factory("--webhook-allow-host", "127.0.0.1", "--post-rate-per-minute", "0")
    token = token_for(first, database_url)
    try:
        assert create_webhook(first, token, receiver.url).status_code == 201
        backlog = [first.post(note(i)).json()["id"] for i in range(10)]
        # Every queued delivery tried and refused once, and recorded: none is under a lease when killed.
        assert receiver.wait_for(lambda r: len(r.snapshot()) >= len(backlog), 15), "not every delivery was tried"
        time.sleep(0.5)  # the refusals recorded in the outbox (the receiver answers before the server writes)
        first.process.send_signal(signal.SIGKILL)
        first.process.wait(30)

        receiver.status_for = lambda path: 200
        # Two instances on the same database: the restarted one and a second.
        again = server_factory("--webhook-allow-host", "127.0.0.1", "--post-rate-per-minute", "0")
        second = server_factory("--webhook-allow-host", "127.0.0.1", "--post-rate-per-minute", "0")
        more = [(again if i % 2 else second).post(note(100 + i)).json()["id"] for i in range(30)]
        expected = set(backlog) | set(more)

        def delivered_ids(r):
            return {c["json"]["post"]["id"] for c in r.accepted() if c["json"]["event"] == "post.created"}
        # The backlog's first retry comes 5-6 s after its first failure, later ones 10-12 s after.
        assert receiver.wait_for(lambda r: expected <= delivered_ids(r), 75), \
            f"missing: {sorted(expected - delivered_ids(receiver))}"
        time.sleep(2)  # a second sending of a delivery by the other instance would come within this
        accepted = [verified(c) for c in receiver.accepted()]
        counts = {}
        for body in accepted:
            counts[body["deliveryId"]] = counts.get(body["deliveryId"], 0) + 1
        assert max(counts.values()) == 1, "a delivery was sent twice by the two instances"
        assert sorted(b["post"]["id"] for b in accepted) == sorted(expected), "each post once"
    finally:
        receiver.close()
