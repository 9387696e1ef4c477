"""PostgreSQL stops under a running server: writes fail fast with 503, /readyz says 503, reads
keep coming from the index, and everything recovers by itself when PostgreSQL returns."""
import glob
import os
import shutil
import subprocess
import time

import requests

from conftest import HEAVY

pytestmark = HEAVY


def pg_ctl_binary():
    """Where the server finds it too: NOTICEBOARD_POSTGRES_BIN, PATH, then Debian's versioned directories."""
    configured = os.environ.get("NOTICEBOARD_POSTGRES_BIN")
    if configured:
        return os.path.join(configured, "pg_ctl")
    found = shutil.which("pg_ctl") or next(iter(sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), reverse=True)), None)
    assert found, "pg_ctl not found"
    return found


def pg_ctl(data_dir, *args):
    cluster = os.path.join(data_dir, "postgres")
    command = [pg_ctl_binary(), "-D", cluster, *args]
    if os.geteuid() == 0:
        command = ["/usr/sbin/runuser", "-u", "postgres", "--", *command]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_writes_fail_fast_and_recover_when_postgresql_returns(embedded_server_factory, data_dir):
    server = embedded_server_factory()
    assert server.post({"lat": 10, "lon": 10, "message": "before", "tag": "t"}).status_code == 201
    with open(os.path.join(data_dir, "postgres", "postmaster.pid")) as handle:
        port = handle.read().splitlines()[3].strip()

    pg_ctl(data_dir, "-m", "immediate", "-w", "stop")
    started = time.monotonic()
    failed = server.post({"lat": 10, "lon": 10, "message": "during", "tag": "t"})
    elapsed = time.monotonic() - started
    assert failed.status_code == 503 and failed.json()["error"]["code"] == "unavailable"
    assert elapsed < 10, f"a write took {elapsed:.1f} s to fail"
    ready = server.get("/readyz")
    assert ready.status_code == 503
    # Reads are answered from the in-memory index all along.
    nearby = server.get("/api/v1/posts/nearby", params={"lat": 10, "lon": 10})
    assert nearby.status_code == 200 and [post["message"] for post in nearby.json()["posts"]] == ["before"]

    pg_ctl(data_dir, "-l", os.path.join(data_dir, "postgres", "restart.log"), "-o", f"-p {port}", "-w", "start")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and server.get("/readyz").status_code != 200:
        time.sleep(0.2)
    assert server.get("/readyz").status_code == 200
    recovered = server.post({"lat": 10, "lon": 10, "message": "after", "tag": "t"})
    assert recovered.status_code == 201
    messages = [post["message"] for post in server.get("/api/v1/posts/nearby", params={"lat": 10, "lon": 10}).json()["posts"]]
    assert sorted(messages) == ["after", "before"]
