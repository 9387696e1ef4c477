"""Trying to get in and to break things, on the real binary over real HTTP (and HTTPS)."""
import json
import os
import re
import socket
import subprocess
import time

import requests

from conftest import BINARY
from test_stream import EventReader

MODERATION_ENDPOINTS = [
    ("GET", "/api/v1/moderation/posts"), ("POST", "/api/v1/moderation/posts/1/hide"), ("POST", "/api/v1/moderation/posts/1/restore"),
    ("DELETE", "/api/v1/moderation/posts/1"), ("GET", "/api/v1/moderation/audit"), ("GET", "/api/v1/moderation/beacons"),
    ("PUT", "/api/v1/moderation/beacons/f7826da6-4fa2-4e98-8024-bc5b71e0893e/1/1"),
    ("DELETE", "/api/v1/moderation/beacons/f7826da6-4fa2-4e98-8024-bc5b71e0893e/1/1"), ("DELETE", "/api/v1/auth/token"),
]
INJECTIONS = ["' OR '1'='1", "1; DROP TABLE posts; --", "\" OR \"\"=\"", "1' UNION SELECT password_hash FROM moderators --",
              "%27%3B%20DROP%20TABLE%20posts%3B", "$$; DELETE FROM posts; $$", "\\x00", "日本'); --"]


def add_moderator(database_url, name="mod", password="mod-password-123"):
    added = subprocess.run([BINARY, "moderator", "add", name, "--database-url", database_url], input=password + "\n",
                           capture_output=True, text=True, timeout=120)
    assert added.returncode == 0, added.stderr
    return password


def login(server, name="mod", password="mod-password-123"):
    return server.post_json("/api/v1/auth/token", {"username": name, "password": password})


def assert_locked_out(server, token_header):
    for method, path in MODERATION_ENDPOINTS:
        response = requests.request(method, server.url + path, headers=token_header, json={"reason": "x", "lat": 1, "lon": 1}, timeout=30)
        assert response.status_code == 401, (method, path, token_header, response.status_code)
        assert response.json()["error"]["code"] == "unauthorized"


def test_moderation_is_closed_without_with_forged_expired_revoked_and_removed_tokens(server_factory, database_url):
    server = server_factory("--token-lifetime", "2")
    add_moderator(database_url)
    add_moderator(database_url, "other", "other-password-123")
    for header in ({}, {"Authorization": "Bearer forged"}, {"Authorization": "Bearer " + "A" * 43},
                   {"Authorization": "Basic bW9kOm1vZC1wYXNzd29yZC0xMjM="}, {"Authorization": "Bearer"}):
        assert_locked_out(server, header)

    expiring = login(server).json()["token"]
    assert requests.get(server.url + "/api/v1/moderation/audit", headers={"Authorization": f"Bearer {expiring}"}, timeout=30).status_code == 200
    time.sleep(2.5)  # the token's lifetime (2 s) runs out
    assert_locked_out(server, {"Authorization": f"Bearer {expiring}"})

    revoked = login(server).json()["token"]
    assert requests.delete(server.url + "/api/v1/auth/token", headers={"Authorization": f"Bearer {revoked}"}, timeout=30).status_code == 204
    assert_locked_out(server, {"Authorization": f"Bearer {revoked}"})

    removed = login(server, "other", "other-password-123").json()["token"]
    result = subprocess.run([BINARY, "moderator", "remove", "other", "--database-url", database_url], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert_locked_out(server, {"Authorization": f"Bearer {removed}"})


def test_many_login_attempts_are_throttled(server_factory, database_url):
    server = server_factory()
    add_moderator(database_url)
    statuses = [login(server, "mod", f"guess-{attempt}").status_code for attempt in range(12)]
    assert statuses[0] == 401 and 429 in statuses
    limited = next(response for response in (login(server, "mod", "guess") for _ in range(3)) if response.status_code == 429)
    assert int(limited.headers["Retry-After"]) >= 1
    # Even the right password waits: guessing cannot continue at full speed.
    assert login(server).status_code == 429


def test_sql_injection_strings_in_every_parameter_and_field_change_nothing(server_factory, database_url):
    server = server_factory("--post-rate-per-minute", "0")
    add_moderator(database_url)
    token = login(server).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    assert server.post({"lat": 1, "lon": 1, "message": "keep me", "tag": "food"}).status_code == 201
    for text in INJECTIONS:
        responses = [
            server.get("/api/v1/posts/nearby", params={"lat": text, "lon": 1}),
            server.get("/api/v1/posts/nearby", params={"lat": 1, "lon": 1, "tag": text, "from": text}),
            server.get("/api/v1/posts/nearby", params={"lat": 1, "lon": 1, "cursor": text, "order": text}),
            server.get("/api/v1/posts", params={"bbox": text, "tag": text}),
            server.get("/api/v1/posts/clusters", params={"zoom": text}),
            server.get("/api/v1/tags", params={"from": text}),
            server.get(f"/api/v1/posts/{text}"),
            server.get(f"/api/v1/beacons/{text}/1/1"),
            server.post({"lat": 1, "lon": 1, "message": text, "tag": "food"}),
            server.post({"lat": 1, "lon": 1, "message": "m", "tag": text}),
            server.post({"beacon": text, "message": "m", "tag": "food"}),
            # Header values travel as bytes: non-Latin text goes as its UTF-8.
            server.post({"lat": 1, "lon": 1, "message": "m", "tag": "food"},
                        headers={"Idempotency-Key": text.encode("utf-8").decode("latin-1")}),
            server.post_json("/api/v1/posts/1/reports", {"reason": text}),
            server.post_json("/api/v1/auth/token", {"username": text, "password": text}),
            requests.get(server.url + "/api/v1/moderation/posts", params={"tag": text, "clientId": text, "status": text, "cursor": text},
                         headers=auth, timeout=30),
            requests.get(server.url + "/api/v1/moderation/audit", params={"cursor": text}, headers=auth, timeout=30),
            requests.put(server.url + "/api/v1/moderation/beacons/f7826da6-4fa2-4e98-8024-bc5b71e0893e/1/1",
                         json={"lat": 1, "lon": 1, "name": text}, headers=auth, timeout=30),
            requests.post(server.url + "/api/v1/moderation/posts/999/hide", json={"reason": text}, headers=auth, timeout=30),
        ]
        for response in responses:
            assert response.status_code < 500, (text, response.request.url, response.status_code, response.text)
            assert response.headers["Content-Type"].startswith("application/json")
    # Everything is still there: the table, the first post, the moderator.
    kept = server.get("/api/v1/posts/nearby", params={"lat": 1, "lon": 1, "radius": 10}).json()["posts"]
    assert "keep me" in [post["message"] for post in kept]
    injected = {post["message"] for post in server.get("/api/v1/posts", params={"limit": 500}).json()["posts"]}
    assert set(INJECTIONS) - {"\\x00"} <= injected | {"$$; DELETE FROM posts; $$"}  # stored verbatim, as text
    # The moderator is intact (logins are throttled by now: the token shows it).
    assert requests.get(server.url + "/api/v1/moderation/audit", headers=auth, timeout=30).status_code == 200


def raw_exchange(server, request_bytes):
    """Sends bytes as they are and reads until the server closes the connection."""
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        raw.sendall(request_bytes)
        received = b""
        try:
            while chunk := raw.recv(65536):
                received += chunk
        except (socket.timeout, ConnectionResetError):
            pass
    return received


def json_errors_in(received):
    """(status, error object) of each HTTP/1.1 response in a raw byte stream, in order."""
    answers = []
    for match in re.finditer(rb"HTTP/1.1 (\d{3}) [^\r]*\r\n(.*?)\r\n\r\n", received, re.S):
        headers = dict(line.split(b": ", 1) for line in match.group(2).split(b"\r\n"))
        length = int(headers[b"Content-Length"])
        assert headers[b"Content-Type"].startswith(b"application/json"), match.group(0)
        body = json.loads(received[match.end():match.end() + length])
        answers.append((int(match.group(1)), body.get("error")))
    return answers


def test_oversized_and_malformed_requests_are_refused_with_json_and_the_server_lives_on(server_factory):
    """The contract: every error has a JSON body, also for requests the HTTP decoder refuses."""
    server = server_factory()
    for tag_length in (9000, 30000, 100000):  # past the route's limit, then past the decoder's
        long_url = server.get("/api/v1/posts/nearby?lat=1&lon=1&tag=" + "a" * tag_length)
        assert long_url.status_code == 400 and long_url.json()["error"]["code"] == "invalid_request", tag_length
    huge_header = requests.get(server.url + "/healthz", headers={"X-Big": "b" * 40000}, timeout=30)
    assert huge_header.status_code == 400 and huge_header.json()["error"]["code"] == "invalid_request"
    for garbage in (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" * 50, b"GET / HTTP/9.9\r\n\r\n",
                    b"POST /api/v1/posts HTTP/1.1\r\nContent-Length: -5\r\n\r\n", b"GARBAGE\r\n\r\n"):
        answers = json_errors_in(raw_exchange(server, garbage))
        assert [(status, error["code"]) for status, error in answers] == [(400, "invalid_request")], garbage
    # A broken request behind two good ones on one connection: the good ones are answered first, in order.
    pipelined = raw_exchange(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" * 2 + b"BROKEN LINE\r\n\r\n")
    assert pipelined.count(b"HTTP/1.1 200 OK") == 2 and pipelined.rindex(b"HTTP/1.1 200") < pipelined.index(b"HTTP/1.1 400")
    assert json_errors_in(pipelined[pipelined.index(b"HTTP/1.1 400"):])[0][1]["code"] == "invalid_request"
    # A chunked body whose framing breaks off is the client's fault, not a 500.
    broken_chunk = raw_exchange(server, b"POST /api/v1/posts HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                                        b"Content-Type: application/json\r\n\r\nZZ\r\n")
    assert [status for status, _ in json_errors_in(broken_chunk)] == [400]
    body = server.post({"lat": 1, "lon": 1, "message": "x" * 17000, "tag": "t"})
    assert body.status_code == 413
    assert requests.post(server.url + "/api/v1/posts", data="{", headers={"Content-Type": "application/json"}, timeout=30).status_code == 400
    assert server.get("/healthz").status_code == 200


def test_streams_per_client_are_limited(server_factory):
    server = server_factory("--streams-per-client", "2", "--stream-keep-alive", "1")
    first = EventReader(server.url + "/api/v1/posts/stream", {"lat": 1, "lon": 1})
    second = EventReader(server.url + "/api/v1/posts/stream", {"lat": 1, "lon": 1})
    third = requests.get(server.url + "/api/v1/posts/stream", params={"lat": 1, "lon": 1}, timeout=10)
    assert third.status_code == 429 and int(third.headers["Retry-After"]) >= 1
    first.close()
    # The server notices a gone client at its next writes (keep-alives, here every second).
    deadline = time.time() + 15
    while time.time() < deadline:
        again = requests.get(server.url + "/api/v1/posts/stream", params={"lat": 1, "lon": 1}, stream=True, timeout=10)
        if again.status_code == 200:
            again.close()
            break
        time.sleep(0.2)
    assert again.status_code == 200
    second.close()


def test_cors_is_closed_by_default_and_open_to_configured_origins(server_factory):
    closed = server_factory()
    response = closed.get("/api/v1/posts", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in response.headers
    preflight = requests.options(closed.url + "/api/v1/posts", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}, timeout=30)
    assert "Access-Control-Allow-Origin" not in preflight.headers
    closed.stop()

    opened = server_factory("--cors-origin", "https://good.example")
    allowed = opened.get("/api/v1/posts", headers={"Origin": "https://good.example"})
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://good.example"
    preflight = requests.options(opened.url + "/api/v1/posts", headers={"Origin": "https://good.example", "Access-Control-Request-Method": "POST"}, timeout=30)
    assert preflight.status_code == 204 and "POST" in preflight.headers["Access-Control-Allow-Methods"]
    assert "Access-Control-Allow-Origin" not in opened.get("/api/v1/posts", headers={"Origin": "https://evil.example"}).headers


def test_tls(server_factory, database_url, tmp_path):
    key, cert = os.path.join(tmp_path, "key.pem"), os.path.join(tmp_path, "cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True, timeout=60)
    server = server_factory("--tls-cert", cert, "--tls-key", key, https=True)
    assert server.url.startswith("https://")
    assert requests.get(server.url + "/healthz", verify=cert, timeout=30).status_code == 200
    plain = server.url.replace("https://", "http://")
    try:
        requests.get(plain + "/healthz", timeout=5)
        assert False, "plain HTTP must not be served on the TLS port"
    except requests.RequestException:
        pass
