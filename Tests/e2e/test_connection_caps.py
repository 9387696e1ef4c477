"""Issue 37: a few addresses cannot fill the connection cap (the per-address cap is a fraction
of it, and its last eighth is kept for addresses with few connections), and a walk that sends
nothing is closed after --walk-idle-timeout."""
import socket
import time

import requests

import raw_clients
from conftest import HEAVY

pytestmark = HEAVY


def open_from(server, source, count):
    return [raw_clients.connect(server, source) for _ in range(count)]


def refused(sock):
    """Answered 503 (and closed), or closed: the server did not keep it."""
    sock.setblocking(False)
    try:
        data = sock.recv(64, socket.MSG_PEEK)
        return data == b"" or data.startswith(b"HTTP/1.1 503")
    except BlockingIOError:
        return False
    except OSError:
        return True


def kept(socks):
    time.sleep(1.5)  # refusals are written (and closed) as the listener takes them
    return sum(1 for sock in socks if not refused(sock))


def newcomer_is_served(server, source):
    sock = raw_clients.connect(server, source)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    answer = sock.recv(20)
    sock.close()
    return answer.startswith(b"HTTP/1.1 200")


def test_three_addresses_cannot_fill_the_cap(server_factory):
    server = server_factory("--max-connections", "96")
    held = []
    try:
        counts = {}
        for source in ("127.0.0.21", "127.0.0.22", "127.0.0.23"):
            socks = open_from(server, source, 40)
            held += socks
            counts[source] = kept(socks)
        print(f"CAPS --max-connections 96, 40 connections from each of 3 addresses: kept {counts}")
        # By default an address may hold a sixteenth of the cap (at least 8).
        assert all(count == 8 for count in counts.values()), counts
        assert newcomer_is_served(server, "127.0.0.24")
    finally:
        for sock in held:
            sock.close()


def test_the_reserve_keeps_room_for_addresses_with_few_connections(server_factory):
    server = server_factory("--max-connections", "64", "--max-connections-per-address", "40")
    held = []
    try:
        first = open_from(server, "127.0.0.31", 40)
        held += first
        second = open_from(server, "127.0.0.32", 40)
        held += second
        counts = [kept(first), kept(second)]
        print(f"CAPS --max-connections 64 (per address 40), 40 each from 2 addresses: kept {counts}")
        # The last eighth (8) is kept for addresses holding fewer than 4.
        assert sum(counts) == 56, counts
        assert newcomer_is_served(server, "127.0.0.33")
        assert newcomer_is_served(server, "127.0.0.34")
    finally:
        for sock in held:
            sock.close()


def test_a_silent_walk_is_closed_and_a_talking_one_is_not(server_factory):
    server = server_factory("--walk-idle-timeout", "2")
    silent = raw_clients.walk(server)
    talking = raw_clients.walk(server)
    started = time.monotonic()
    try:
        while time.monotonic() - started < 3.5:
            raw_clients.send_frame(talking, '{"lat": 1, "lon": 1, "radius": 100}')
            time.sleep(0.5)
        code = raw_clients.close_code(silent, 3)
        took = time.monotonic() - started
        print(f"CAPS silent walk closed with {code} after {took:.1f} s (--walk-idle-timeout 2)")
        assert code == 1000, code
        assert took < 6.5
        # The talking walk is still served: an update is answered (an empty view sends nothing,
        # so a bad one is sent to get its error message).
        raw_clients.send_frame(talking, "not json")
        talking.settimeout(3)
        assert talking.recv(65536)[:1] == b"\x81", "the talking walk was closed"
    finally:
        silent.close()
        talking.close()
    assert requests.get(server.url + "/healthz", timeout=5).status_code == 200
