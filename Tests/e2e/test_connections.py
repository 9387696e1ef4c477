"""Slow, idle, stalled and too many connections: timeouts, caps, and a server that lives on."""
import json
import os
import resource
import socket
import subprocess
import time

import requests

from conftest import BINARY, HEAVY, Server, wait_for_streams

pytestmark = HEAVY

# Loopback is a whole /8: connections from 127.0.0.2… count as other addresses.
ATTACKERS = [f"127.0.0.{n}" for n in range(2, 12)]


def raise_own_descriptor_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def address(server):
    host, port = server.url.removeprefix("http://").split(":")
    return host, int(port)


def connect(server, source):
    sock = socket.create_connection(address(server), timeout=10, source_address=(source, 0))
    sock.setblocking(False)
    return sock


SLOW_KINDS = [
    b"",  # says nothing
    b"GET /api/v1/posts/near",  # a partial request line
    b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: a",  # unfinished headers
    b"POST /api/v1/posts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"lat\":",  # short body
]


def is_closed_by_peer(sock):
    try:
        return sock.recv(65536) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def wait_all_closed(socks, limit):
    started = time.monotonic()
    open_socks = list(socks)
    while open_socks and time.monotonic() - started < limit:
        open_socks = [sock for sock in open_socks if not is_closed_by_peer(sock)]
        time.sleep(0.1)
    return len(open_socks), time.monotonic() - started


def metric(server, name):
    text = server.get("/metrics").text
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name) and not line.startswith("#"):
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_a_thousand_slow_connections_time_out_and_healthz_answers_meanwhile(server_factory):
    raise_own_descriptor_limit()
    server = server_factory("--idle-timeout", "3", "--body-timeout", "3")
    socks = []
    try:
        for index in range(1000):
            sock = connect(server, ATTACKERS[index % len(ATTACKERS)])
            kind = SLOW_KINDS[index % len(SLOW_KINDS)]
            if kind:
                sock.send(kind)
            socks.append(sock)
        # A trickle: one more header byte now and then does not keep a connection alive.
        trickled = socks[2::40]
        started = time.monotonic()
        answered = requests.get(server.url + "/healthz", timeout=5)
        healthz_seconds = time.monotonic() - started
        assert answered.status_code == 200 and healthz_seconds < 2
        for _ in range(4):
            time.sleep(1)
            for sock in trickled:
                try:
                    sock.send(b"b")
                except OSError:
                    pass
        still_open, waited = wait_all_closed(socks, 10)
        assert still_open == 0, f"{still_open} of 1000 slow connections still open after {waited:.1f} s"
        print(f"FAULTS slow connections: 1000 open, /healthz in {healthz_seconds * 1000:.0f} ms, all closed {4 + waited:.1f} s after opening")
        assert metric(server, "noticeboard_connections_timed_out_total") >= 1000
        assert requests.get(server.url + "/healthz", timeout=5).status_code == 200
    finally:
        for sock in socks:
            sock.close()


def test_an_address_over_its_cap_gets_a_json_503_and_others_are_served(server_factory):
    server = server_factory("--max-connections-per-address", "20")
    held = [connect(server, "127.0.0.7") for _ in range(20)]
    try:
        time.sleep(0.3)
        extra = socket.create_connection(address(server), timeout=5, source_address=("127.0.0.7", 0))
        extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        received = b""
        while True:
            chunk = extra.recv(65536)
            if not chunk:
                break
            received += chunk
        extra.close()
        head, _, body = received.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503"), received
        assert json.loads(body)["error"]["code"] == "unavailable"
        assert requests.get(server.url + "/healthz", timeout=5).status_code == 200
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.3)
    again = socket.create_connection(address(server), timeout=5, source_address=("127.0.0.7", 0))
    again.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert again.recv(100).startswith(b"HTTP/1.1 200")
    again.close()


def test_at_the_descriptor_limit_the_server_refuses_and_lives(data_dir):
    raise_own_descriptor_limit()
    limit = 400

    def low_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    server = Server(data_dir, preexec_fn=low_limit)
    socks = []
    try:
        for index in range(600):
            try:
                socks.append(connect(server, ATTACKERS[index % len(ATTACKERS)]))
            except OSError:
                pass
        time.sleep(1)
        assert server.process.poll() is None, "the server died at the descriptor limit"
        refused = sum(1 for sock in socks if peek_503(sock) or is_closed_by_peer(sock))
        assert refused >= 600 - limit, refused
        descriptors = len(os.listdir(f"/proc/{server.process.pid}/fd"))
        print(f"FAULTS descriptor limit {limit}: 600 connections, {refused} refused with 503, server holds {descriptors} descriptors")
        for sock in socks:
            sock.close()
        socks = []
        time.sleep(1)
        assert requests.get(server.url + "/healthz", timeout=5).status_code == 200
        assert server.process.poll() is None
    finally:
        for sock in socks:
            sock.close()
        server.stop()


def peek_503(sock):
    try:
        return sock.recv(64, socket.MSG_PEEK).startswith(b"HTTP/1.1 503")
    except OSError:
        return False


def test_shutdown_does_not_wait_for_slow_connections_for_ever(server_factory):
    server = server_factory("--shutdown-timeout", "2")
    socks = [connect(server, "127.0.0.3") for _ in range(4)]
    for sock, kind in zip(socks, SLOW_KINDS):
        if kind:
            sock.send(kind)
    time.sleep(0.3)
    started = time.monotonic()
    assert server.stop(timeout=30) == 0
    assert time.monotonic() - started < 8, f"stopping took {time.monotonic() - started:.1f} s"
    print(f"FAULTS SIGTERM with 4 slow connections: stopped in {time.monotonic() - started:.1f} s")
    for sock in socks:
        sock.close()


def resident_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_a_stream_that_never_reads_is_dropped_and_memory_stays_bounded(server_factory):
    server = server_factory("--post-rate-per-minute", "0", "--write-timeout", "3")
    area = "lat=10.5&lon=10.5&radius=5000"
    stalled = []
    for _ in range(4):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(address(server))
        sock.sendall(f"GET /api/v1/posts/stream?{area} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        stalled.append(sock)
    wait_for_streams(server, 4)
    assert metric(server, "noticeboard_stream_subscribers") == 4
    before = resident_kib(server.process.pid)
    session = requests.Session()
    message = "x" * 1900
    for index in range(3000):
        response = session.post(server.url + "/api/v1/posts", json={"lat": 10.5, "lon": 10.5, "message": f"{index} {message}", "tag": "food"},
                                timeout=30)
        assert response.status_code == 201, response.text
    grown_mib = (resident_kib(server.process.pid) - before) / 1024
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and metric(server, "noticeboard_stream_subscribers") > 0:
        time.sleep(0.2)
    assert metric(server, "noticeboard_stream_subscribers") == 0, "the stalled streams were never dropped"
    print(f"FAULTS stalled streams: 4 never reading, 3000 posts of 2 KB; dropped, resident memory +{grown_mib:.0f} MiB")
    # 4 streams × 3000 events × 2 KB would be 24 MB held per stream if nothing were dropped.
    assert grown_mib < 40, f"resident memory grew {grown_mib:.0f} MiB"
    for sock in stalled:
        sock.close()
    # The server lives on, and a new stream is welcome at once.
    assert requests.get(server.url + "/api/v1/posts/stream?" + area, stream=True, timeout=5).status_code == 200


def test_a_client_that_leaves_frees_its_stream_place_at_once(server_factory):
    server = server_factory("--streams-per-client", "2")
    url = server.url + "/api/v1/posts/stream?lat=1&lon=1&radius=100"
    for _ in range(5):
        socks = []
        for _ in range(2):
            sock = socket.create_connection(address(server), timeout=5)
            sock.sendall(b"GET /api/v1/posts/stream?lat=1&lon=1&radius=100 HTTP/1.1\r\nHost: x\r\n\r\n")
            assert sock.recv(20).startswith(b"HTTP/1.1 200")
            socks.append(sock)
        for sock in socks:
            sock.close()
        time.sleep(0.3)
    response = requests.get(url, stream=True, timeout=5)
    assert response.status_code == 200
    response.close()
