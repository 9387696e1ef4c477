"""Issue 37: shutdown is bounded. A server is stopped with SIGTERM in each state the test suite
leaves connections in, and exits within its deadline (--shutdown-timeout for busy connections,
then the watchdog's 5 s for every other service), its embedded PostgreSQL stopped."""
import os
import signal
import subprocess
import time

import pytest

import raw_clients
from conftest import HEAVY, OUTPUT, Server, cluster_running

pytestmark = HEAVY

SHUTDOWN_TIMEOUT = 2
DEADLINE = SHUTDOWN_TIMEOUT + 5
# Stopping the embedded PostgreSQL comes after the services, and a loaded machine is slow.
SLACK = 4
CLEANUP_LIMIT = 10


def idle(server):
    return []


def keep_alive(server):
    sock = raw_clients.connect(server)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert sock.recv(20).startswith(b"HTTP/1.1 200")
    return [sock]


def mid_request(server):
    return [raw_clients.half_sent_body(server)]


def streams(server):
    return [raw_clients.stream(server) for _ in range(3)]


def half_sent_head(server):
    return [raw_clients.half_sent_head(server), raw_clients.connect(server)]


def open_walk(server):
    sock = raw_clients.walk(server)
    raw_clients.send_frame(sock, '{"lat": 1, "lon": 1, "radius": 100}')
    return [sock]


def broken_walk(server):
    """A walk sent a continuation frame with no start (issue 36's leak)."""
    sock = raw_clients.walk(server)
    raw_clients.send_frame(sock, "orphan", opcode=0x0)
    return [sock]


def postmaster_pid(server):
    with open(f"{server.data_dir}/postgres/postmaster.pid") as handle:
        return int(handle.readline())


def postgres_killed(server):
    """The embedded PostgreSQL killed, its supervisor starting it again."""
    os.kill(postmaster_pid(server), signal.SIGKILL)
    return []


def postgres_frozen(server):
    """The embedded PostgreSQL stopped dead (SIGSTOP): stopping it cannot finish either."""
    server.frozen = postmaster_pid(server)
    os.kill(server.frozen, signal.SIGSTOP)
    server.post({"lat": 1, "lon": 1, "message": "into a frozen database", "tag": "t"})
    return []


def everything(server):
    return keep_alive(server) + mid_request(server) + streams(server) + half_sent_head(server) + open_walk(server)


@pytest.mark.parametrize("state", [idle, keep_alive, mid_request, streams, half_sent_head, open_walk, broken_walk, postgres_killed,
                                   postgres_frozen, everything],
                         ids=lambda state: state.__name__)
def test_sigterm_ends_the_server_within_its_deadline(data_dir, state):
    server = Server(data_dir, "--shutdown-timeout", str(SHUTDOWN_TIMEOUT))
    held = []
    try:
        held = state(server)
        time.sleep(0.3)
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        try:
            code = server.process.wait(DEADLINE + SLACK + 30)
        except subprocess.TimeoutExpired:
            code = None
        took = time.monotonic() - started
    finally:
        server.kill()
        for sock in held:
            sock.close()
        if getattr(server, "frozen", None):
            os.kill(server.frozen, signal.SIGCONT)  # for the fixture to stop it
        with open(f"{OUTPUT}/e2e-server.log", "a") as log:
            log.writelines(server.lines)
    output = "".join(server.lines)
    print(f"SHUTDOWN {state.__name__}: exit status {code} after {took:.1f} s")
    assert code is not None, f"still running {took:.0f} s after SIGTERM:\n{output[-3000:]}"
    if state is postgres_frozen:
        # A frozen cluster cannot be stopped: the watchdog gives its stop 10 s, then leaves.
        assert took < DEADLINE + CLEANUP_LIMIT + SLACK, f"{state.__name__}: {took:.1f} s"
        return
    assert took < DEADLINE + SLACK, f"{state.__name__}: {took:.1f} s"
    assert not cluster_running(data_dir), "the embedded PostgreSQL was left running"
    # A broken walk ends at once (issue 36): the watchdog is left for what no test makes.
    assert code == 0, output[-3000:]


def test_sigterm_closes_partial_heads_and_walks_at_once(data_dir):
    server = Server(data_dir, "--shutdown-timeout", "6")
    try:
        busy = raw_clients.half_sent_body(server)
        partial = [raw_clients.half_sent_head(server), raw_clients.connect(server)]
        walker = raw_clients.walk(server)
        time.sleep(0.3)
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        code = raw_clients.close_code(walker, 3)
        walk_closed = time.monotonic() - started
        assert all(raw_clients.closed_within(sock, 1.5) for sock in partial), "a partial head was held after SIGTERM"
        heads_closed = time.monotonic() - started
        print(f"SHUTDOWN SIGTERM: walk closed with {code} after {walk_closed:.2f} s, partial heads after {heads_closed:.2f} s")
        # Hummingbird's WebSocket handler may say 1000 before the gate's 1001: either is a goodbye.
        assert code in (1000, 1001), f"the walk got close code {code}"
        assert walk_closed < 1.5 and heads_closed < 1.5
        # The request under way still has its shutdown timeout.
        assert server.process.poll() is None and not raw_clients.closed_within(busy, 0.5)
        server.process.wait(6 + 5 + SLACK)
        assert server.process.returncode == 0
    finally:
        server.kill()
