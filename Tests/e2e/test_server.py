"""End-to-end: the built binary, its embedded PostgreSQL, restarts and crashes."""
import concurrent.futures
import json
import os
import signal
import subprocess
import time

import requests

from conftest import BINARY, HEAVY, cluster_running, wait_until


def note(i, **extra):
    return {"lat": 22.3 + i * 1e-5, "lon": 114.2, "message": f"note {i}", "tag": "food", **extra}


def test_posts_survive_a_restart_and_the_cluster_stops_with_the_server(embedded_server_factory, data_dir):
    server = embedded_server_factory()
    assert "embedded PostgreSQL" in "".join(server.lines)
    created = [server.post(note(i)) for i in range(5)]
    assert [r.status_code for r in created] == [201] * 5
    ids = {r.json()["id"] for r in created}
    assert server.stop() == 0
    assert not cluster_running(data_dir), "SIGTERM must stop the embedded cluster"

    again = embedded_server_factory()
    page = again.get("/api/v1/posts").json()
    assert {p["id"] for p in page["posts"]} == ids
    nearby = again.get("/api/v1/posts/nearby", params={"lat": 22.3, "lon": 114.2, "radius": 50}).json()
    assert {p["id"] for p in nearby["posts"]} == ids
    assert all(p["distance"] <= 50 for p in nearby["posts"])


@HEAVY
def test_no_acknowledged_post_is_lost_when_the_server_is_killed(embedded_server_factory):
    """kill -9 during a burst of concurrent posts: every 201 is served after the restart (which
    adopts the cluster the killed server left running), and retried idempotent requests create no
    duplicates."""
    server = embedded_server_factory("--post-rate-per-minute", "0")
    acknowledged = {}

    def send(i):
        try:
            response = server.post(note(i), headers={"Idempotency-Key": f"burst-{i}"})
            if response.status_code == 201:
                acknowledged[i] = response.json()["id"]
        except Exception:
            pass  # the server died under this request: not acknowledged

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(send, i) for i in range(400)]
        deadline = time.monotonic() + 60
        while len(acknowledged) < 40 and time.monotonic() < deadline:
            time.sleep(0.005)
        server.process.send_signal(signal.SIGKILL)
        concurrent.futures.wait(futures)
    server.process.wait(30)
    assert len(acknowledged) >= 40

    again = embedded_server_factory("--post-rate-per-minute", "0")
    stored = {p["id"] for p in again.get("/api/v1/posts", params={"limit": 500}).json()["posts"]}
    assert set(acknowledged.values()) <= stored
    # Retrying every request with its key returns the original post and creates nothing new.
    for i, post_id in list(acknowledged.items())[:50]:
        retry = again.post(note(i), headers={"Idempotency-Key": f"burst-{i}"})
        assert retry.status_code == 200 and retry.json()["id"] == post_id
    after = {p["id"] for p in again.get("/api/v1/posts", params={"limit": 500}).json()["posts"]}
    assert after == stored


def test_errors_are_json_naming_the_field(server_factory):
    server = server_factory()
    bad = server.post({"lat": "22.4", "lon": 1, "message": "m", "tag": "t"})
    assert bad.status_code == 400
    assert bad.json()["error"] == {"code": "invalid_request", "field": "lat", "message": bad.json()["error"]["message"]}
    assert server.get("/api/v1/posts/nearby", params={"lat": 1}).json()["error"]["field"] == "lon"
    chunked = server.post(None, data=iter([b"{" + b" " * 9000, b" " * 9000 + b"}"]),
                          headers={"Content-Type": "application/json"})
    assert chunked.status_code == 413 and chunked.json()["error"]["code"] == "payload_too_large"
    assert server.get("/healthz").status_code == 200


def test_a_second_command_joins_the_running_cluster(embedded_server_factory, data_dir):
    embedded_server_factory()
    result = subprocess.run([BINARY, "migrate", "--data-dir", data_dir], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "up to date" in result.stdout
    assert cluster_running(data_dir), "a command that joined the server's cluster must not stop it"


def test_missing_postgresql_is_one_clear_line(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    result = subprocess.run([BINARY, "serve", "--data-dir", str(tmp_path / "data")], capture_output=True, text=True,
                            timeout=60, env={**os.environ, "NOTICEBOARD_POSTGRES_BIN": str(empty)})
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "apt-get install" in lines[0] and "postgresql" in lines[0], result.stderr


def test_the_web_page_is_served_at_the_root(server_factory):
    server = server_factory()
    page = server.get("/")
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert "<title>NoticeBoard</title>" in page.text
    script = server.get("/app.js")
    assert script.status_code == 200 and "javascript" in script.headers["Content-Type"]
    assert server.get("/app.js", headers={"If-None-Match": script.headers["ETag"]}).status_code == 304
    missing = server.get("/nope.js")
    assert missing.json()["error"]["code"] == "not_found"
    for response in (page, missing, server.get("/api/v1/posts")):
        policy = response.headers["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy and "unsafe-inline" not in policy
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"
    # A script or style sheet is no document: no policy of its own, but never sniffed; the service
    # worker's script is governed by the policy it comes with.
    for file in (script, server.get("/style.css")):
        assert "Content-Security-Policy" not in file.headers and file.headers["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors 'none'" in server.get("/sw.js").headers["Content-Security-Policy"]


def test_leaflet_is_served_gzipped_with_caching(server_factory):
    server = server_factory()
    plain = server.get("/vendor/leaflet/leaflet.min.js", headers={"Accept-Encoding": "identity"})
    zipped = server.get("/vendor/leaflet/leaflet.min.js", headers={"Accept-Encoding": "gzip, br"})
    assert plain.status_code == 200 and zipped.status_code == 200
    assert zipped.headers["Content-Encoding"] == "gzip" and "Content-Encoding" not in plain.headers
    assert zipped.content == plain.content  # requests inflates it: the same script
    assert int(zipped.headers["Content-Length"]) < len(plain.content) / 2
    assert zipped.headers["Content-Type"].startswith("text/javascript") and "max-age" in zipped.headers["Cache-Control"]
    assert server.get("/vendor/leaflet/../../../../etc/passwd.js", headers={"Accept-Encoding": "gzip"}).status_code == 404


def test_metrics_in_the_prometheus_format(server_factory):
    server = server_factory()
    server.post({"lat": 1, "lon": 1, "message": "m", "tag": "t"})
    server.get("/api/v1/posts/nearby", params={"lat": 1, "lon": 1})
    metrics = server.get("/metrics")
    assert metrics.status_code == 200 and metrics.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    text = metrics.text
    assert "noticeboard_posts_indexed 1" in text and "noticeboard_index_ready 1" in text
    assert 'hb_requests' in text and '/api/v1/posts/nearby' in text, text[:2000]


def test_json_logs_carry_request_ids_and_no_secrets(server_factory):
    server = server_factory("--log-format", "json", "--log-level", "debug", "--post-rate-per-minute", "1", "--post-burst", "1")
    secret_message = "my secret note text 4f1c"
    assert server.post({"lat": 1, "lon": 1, "message": secret_message, "tag": "t"}).status_code == 201
    limited = server.post({"lat": 1, "lon": 1, "message": "again", "tag": "t"})
    assert limited.status_code == 429
    chosen = server.get("/api/v1/posts/nearby", params={"lat": 1, "lon": 1}, headers={"X-Request-Id": "trace-me.42"})
    assert chosen.headers["X-Request-Id"] == "trace-me.42"
    generated = server.get("/api/v1/posts/999999", headers={"X-Request-Id": "bad id with spaces"})
    assert generated.status_code == 404 and generated.headers["X-Request-Id"] not in ("", "bad id with spaces")
    login = server.post_json("/api/v1/auth/token", {"username": "nobody", "password": "hunter2-secret-pw"})
    assert login.status_code == 401

    metrics = server.get("/metrics").text
    assert "noticeboard_rate_limited_total" in metrics and "noticeboard_index_load_seconds" in metrics
    assert "noticeboard_process_resident_bytes" in metrics and "noticeboard_db_operation_seconds" in metrics
    assert "noticeboard_db_operations_in_flight" in metrics

    def finished_ids():
        return {json.loads(line).get("request_id") for line in list(server.lines) if '"request finished"' in line}
    # The server's output is read on a thread: its last request lines may still be on their way.
    wait_until(lambda: {"trace-me.42", generated.headers["X-Request-Id"]} <= finished_ids(), 10, "the request lines")
    records = []
    for line in server.lines:
        if line.startswith("{"):
            records.append(json.loads(line))  # every structured line is valid JSON
    finished = [record for record in records if record.get("message") == "request finished"]
    assert any(record.get("request_id") == "trace-me.42" and record["path"] == "/api/v1/posts/nearby" for record in finished)
    assert any(record.get("request_id") == generated.headers["X-Request-Id"] for record in finished)
    everything = "".join(server.lines)
    assert secret_message not in everything and "hunter2-secret-pw" not in everything


def test_a_flag_wins_over_the_environment_which_wins_over_the_default(server_factory):
    """Settings (swift-configuration): a flag, else NOTICEBOARD_…, else the default; lists from
    the environment comma-separated; a value that cannot be read names its variable and stops."""
    env = {"NOTICEBOARD_TILE_URL": "https://env.example/{z}/{x}/{y}.png", "NOTICEBOARD_TILE_ATTRIBUTION": "from the environment",
           "NOTICEBOARD_CORS_ORIGINS": "https://a.example, https://b.example"}
    server = server_factory("--tile-url", "https://flag.example/{z}/{x}/{y}.png", env=env)
    config = server.get("/config.json").json()
    assert config["tileURL"] == "https://flag.example/{z}/{x}/{y}.png"
    assert config["tileAttribution"] == "from the environment"
    for origin in ("https://a.example", "https://b.example"):
        preflight = requests.options(server.url + "/api/v1/posts", timeout=10, headers={
            "Origin": origin, "Access-Control-Request-Method": "POST"})
        assert preflight.headers.get("Access-Control-Allow-Origin") == origin, preflight.headers
    plain = server_factory()
    assert "openstreetmap" in plain.get("/config.json").json()["tileURL"]
    refused = subprocess.run([BINARY, "serve", "--port", "0"], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "NOTICEBOARD_POST_BURST": "ten"})
    assert refused.returncode != 0 and "NOTICEBOARD_POST_BURST must be an integer, not ten" in refused.stderr, refused.stderr
