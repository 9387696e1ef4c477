"""Web Push: a push service of our own on loopback (RFC 8030) decrypts every payload with the
subscription's private key and auth secret (RFC 8291, via http_ece) and verifies the VAPID token
(RFC 8292: ES256 signature, aud, exp) against the server's published key; a 410 ends a subscription."""
import base64
import json
import os
import time

import http_ece
import requests
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from outbox_receivers import Receiver

AREA = {"lat": 35.6812, "lon": 139.7671, "radius": 1500}
DEVICE = {"X-Device-Key": "push-device-key-0001"}
OTHER_DEVICE = {"X-Device-Key": "push-device-key-0002"}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Browser:
    """A subscription's keys, as a browser makes them."""

    def __init__(self, endpoint):
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.public = self.private_key.public_key().public_bytes(serialization.Encoding.X962,
                                                                 serialization.PublicFormat.UncompressedPoint)
        self.auth = os.urandom(16)
        self.endpoint = endpoint

    def subscription(self):
        return {"endpoint": self.endpoint, "keys": {"p256dh": b64url(self.public), "auth": b64url(self.auth)}}

    def decrypt(self, body):
        return json.loads(http_ece.decrypt(body, private_key=self.private_key, auth_secret=self.auth, version="aes128gcm"))


def verify_vapid(headers, server_key, audience):
    scheme, _, params = headers["authorization"].partition(" ")
    assert scheme == "vapid"
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert fields["k"] == server_key, "the token's key is not the one GET /api/v1/push/key publishes"
    header_b64, claims_b64, signature_b64 = fields["t"].split(".")
    assert json.loads(unb64url(header_b64)) == {"typ": "JWT", "alg": "ES256"}
    claims = json.loads(unb64url(claims_b64))
    assert claims["aud"] == audience
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600
    assert claims["sub"].startswith("mailto:") or claims["sub"].startswith("https:")
    signature = unb64url(signature_b64)
    assert len(signature) == 64
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(server_key))
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    public.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged


def test_pushes_are_encrypted_signed_and_a_410_ends_the_subscription(server_factory):
    service = Receiver()
    service.status_for = lambda path: 410 if path.startswith("/push/gone") else 201
    server = server_factory("--webhook-allow-host", "127.0.0.1", "--post-rate-per-minute", "0")
    try:
        key = server.get("/api/v1/push/key").json()["publicKey"]
        assert len(unb64url(key)) == 65 and unb64url(key)[0] == 4
        assert server.get("/api/v1/push/key").json()["publicKey"] == key

        kept = Browser(service.url + "/push/kept")
        gone = Browser(service.url + "/push/gone")
        tagged = Browser(service.url + "/push/tagged")

        def subscribe(browser, headers=DEVICE, **extra):
            body = {"subscription": browser.subscription(), "area": AREA, **extra}
            return requests.post(server.url + "/api/v1/push/subscriptions", json=body, headers=headers, timeout=10)

        # Refusals name their field.
        assert subscribe(kept, headers={}).json()["error"]["field"] == "X-Device-Key"
        assert subscribe(kept, area={**AREA, "radius": 5001}).json()["error"]["field"] == "area.radius"
        bad_key = {"subscription": {**kept.subscription(), "keys": {"p256dh": b64url(b"\x04" + b"\x01" * 64), "auth": b64url(kept.auth)}},
                   "area": AREA}
        refused = requests.post(server.url + "/api/v1/push/subscriptions", json=bad_key, headers=DEVICE, timeout=10)
        assert refused.status_code == 400 and refused.json()["error"]["field"] == "subscription.keys.p256dh"
        short_auth = {"subscription": {**kept.subscription(), "keys": {"p256dh": b64url(kept.public), "auth": "abc"}}, "area": AREA}
        assert requests.post(server.url + "/api/v1/push/subscriptions", json=short_auth, headers=DEVICE,
                             timeout=10).json()["error"]["field"] == "subscription.keys.auth"
        private = Browser("http://10.0.0.9/push")
        assert subscribe(private).json()["error"]["field"] == "subscription.endpoint"

        ids = {}
        for name, browser, extra in [("kept", kept, {}), ("gone", gone, {}), ("tagged", tagged, {"tags": ["sports"]})]:
            made = subscribe(browser, **extra)
            assert made.status_code == 201, made.text
            ids[name] = made.json()["id"]

        food = server.post({"lat": 35.6815, "lon": 139.7675, "message": "ラーメン here 🍜", "tag": "food"}).json()["id"]
        server.post({"lat": 34.69, "lon": 135.50, "message": "far away", "tag": "food"})
        sports = server.post({"lat": 35.6810, "lon": 139.7670, "message": "match at 7", "tag": "sports"}).json()["id"]

        def pushes(path):
            return [c for c in service.snapshot() if c["path"] == path]
        assert service.wait_for(lambda s: len(pushes("/push/kept")) >= 2 and len(pushes("/push/tagged")) >= 1
                                and len(pushes("/push/gone")) >= 1, 20), service.snapshot()
        time.sleep(1)  # a push that should not come (a duplicate, the far note) would come within this
        audience = service.url
        received = {}
        for path, browser in [("/push/kept", kept), ("/push/tagged", tagged), ("/push/gone", gone)]:
            for call in pushes(path):
                assert call["headers"]["content-encoding"] == "aes128gcm"
                assert int(call["headers"]["ttl"]) > 0
                verify_vapid(call["headers"], key, audience)
                received.setdefault(path, []).append(browser.decrypt(call["body"])["post"])
        assert sorted(p["id"] for p in received["/push/kept"]) == sorted([food, sports])
        assert [p["id"] for p in received["/push/tagged"]] == [sports]
        assert next(p for p in received["/push/kept"] if p["id"] == food)["message"] == "ラーメン here 🍜"

        # The 410 ended that subscription: it is gone, and is not pushed again.
        assert requests.delete(server.url + f"/api/v1/push/subscriptions/{ids['gone']}", headers=DEVICE, timeout=10).status_code == 404
        gone_calls = len(pushes("/push/gone"))
        # Another device cannot end someone's subscription; its own device can.
        assert requests.delete(server.url + f"/api/v1/push/subscriptions/{ids['kept']}", headers=OTHER_DEVICE,
                               timeout=10).status_code == 403
        assert requests.delete(server.url + f"/api/v1/push/subscriptions/{ids['kept']}", headers=DEVICE, timeout=10).status_code == 204
        kept_calls = len(pushes("/push/kept"))
        server.post({"lat": 35.6811, "lon": 139.7672, "message": "after", "tag": "sports"})
        assert service.wait_for(lambda s: len(pushes("/push/tagged")) >= 2, 10)
        time.sleep(0.5)  # pushes to the ended subscriptions, if any, would come with it
        assert len(pushes("/push/kept")) == kept_calls and len(pushes("/push/gone")) == gone_calls
        metrics = server.get("/metrics").text
        assert 'noticeboard_deliveries_total{kind="push",outcome="gone"}' in metrics
        assert 'noticeboard_delivery_latency_seconds' in metrics
    finally:
        service.close()


def test_a_reply_to_your_note_is_pushed_to_you_alone(server_factory):
    """Contract 1.2: `"replies": true` pushes each visible reply by another key to the notes
    made with the subscription's device key, decrypted here; the longest note still fits."""
    service = Receiver()
    service.status_for = lambda path: 201
    server = server_factory("--webhook-allow-host", "127.0.0.1", "--post-rate-per-minute", "0")
    try:
        author = Browser(service.url + "/push/author")
        body = {"subscription": author.subscription(), "replies": True}
        both = requests.post(server.url + "/api/v1/push/subscriptions", json={**body, "area": AREA}, headers=DEVICE, timeout=10)
        assert both.status_code == 400 and both.json()["error"]["field"] == "area"
        wrong = requests.post(server.url + "/api/v1/push/subscriptions", json={**body, "replies": "yes"}, headers=DEVICE, timeout=10)
        assert wrong.status_code == 400 and wrong.json()["error"]["field"] == "replies"
        neither = requests.post(server.url + "/api/v1/push/subscriptions", json={"subscription": author.subscription()}, headers=DEVICE, timeout=10)
        assert neither.status_code == 400 and neither.json()["error"]["field"] == "area"
        made = requests.post(server.url + "/api/v1/push/subscriptions", json=body, headers=DEVICE, timeout=10)
        assert made.status_code == 201, made.text

        long_note = "長" * 2000
        note = server.post({"lat": 35.6815, "lon": 139.7675, "message": long_note, "tag": "food"}, headers=DEVICE).json()["id"]
        others = server.post({"lat": 35.6815, "lon": 139.7675, "message": "not yours", "tag": "food"}, headers=OTHER_DEVICE).json()["id"]

        def reply(post_id, message, headers):
            response = requests.post(server.url + f"/api/v1/posts/{post_id}/replies", json={"message": message}, headers=headers, timeout=10)
            assert response.status_code == 201, response.text
            return response.json()["id"]
        first = reply(note, "答" * 1200, OTHER_DEVICE)
        reply(note, "thanks, from the author", DEVICE)      # the author's own answer: not pushed
        reply(others, "on someone else's note", DEVICE)     # not the author's note
        second = reply(note, "me too", {})                   # no key at all is someone else

        assert service.wait_for(lambda s: len(s.snapshot()) >= 2, 20), service.snapshot()
        time.sleep(1.5)  # the replies that must not be pushed would have arrived by now
        calls = [c for c in service.snapshot() if c["path"] == "/push/author"]
        assert all(len(c["body"]) <= 4096 for c in calls), [len(c["body"]) for c in calls]
        pushed = [author.decrypt(c["body"]) for c in calls]
        assert sorted(p["reply"]["id"] for p in pushed) == sorted([first, second]), pushed
        for payload in pushed:
            assert payload["post"]["id"] == note and payload["reply"]["postId"] == note
        long_one = next(p for p in pushed if p["reply"]["id"] == first)
        assert long_one["reply"]["message"] == "答" * 1200, "the reply is pushed whole; the note's text gives way"
        assert long_one.get("truncated") is True and long_note.startswith(long_one["post"]["message"].rstrip("…"))
    finally:
        service.close()
