"""Issue 36: a walk socket broken by its client (a fragmented message past 16 KiB, a protocol
error, invalid UTF-8, a continuation with no start, a TCP reset) is closed
with the right code and frees everything at once: sixteen broken walks leave the address room
for a seventeenth, and the server then stops on SIGTERM within its deadline."""
import signal
import socket
import struct
import time

import raw_clients
from conftest import HEAVY, Server, cluster_running

pytestmark = HEAVY

SHUTDOWN_TIMEOUT = 2


def oversized_fragments(sock):
    raw_clients.send_frame(sock, "x" * 10_000, opcode=0x1, fin=False)
    raw_clients.send_frame(sock, "y" * 10_000, opcode=0x0, fin=True)
    return {1009}


def orphan_continuation(sock):
    raw_clients.send_frame(sock, "orphan", opcode=0x0)
    return {1002}


def bad_utf8(sock):
    raw_clients.send_frame(sock, b"\xc3\x28 not text", opcode=0x1)
    return {1007}


def reserved_opcode(sock):
    raw_clients.send_frame(sock, "?", opcode=0x3)
    return {1002}


def reset(sock):
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()
    return None


BREAKS = [oversized_fragments, orphan_continuation, bad_utf8, reserved_opcode, reset]


def test_broken_walks_are_closed_and_freed_and_shutdown_ends(data_dir):
    server = Server(data_dir, "--shutdown-timeout", str(SHUTDOWN_TIMEOUT), "--walks-per-client", "16")
    try:
        codes = {}
        for index in range(16):
            breaking = BREAKS[index % len(BREAKS)]
            sock = raw_clients.walk(server)
            raw_clients.send_frame(sock, '{"lat": 48.8566, "lon": 2.3522}')
            expected = breaking(sock)
            if expected is not None:
                code = raw_clients.close_code(sock, 5)
                codes.setdefault(breaking.__name__, set()).add(code)
                sock.close()
        print(f"WALK BREAKAGE close codes: {codes}")
        assert codes["oversized_fragments"] <= {1009}, codes
        assert codes["orphan_continuation"] <= {1002}, codes
        assert codes["bad_utf8"] <= {1007}, codes
        assert codes["reserved_opcode"] <= {1002}, codes
        # Every walk's slot was given back: a seventeenth from the same address is served.
        deadline = time.monotonic() + 5
        while True:
            walker = raw_clients.walk(server)
            raw_clients.send_frame(walker, '{"lat": 48.8566, "lon": 2.3522}')
            code = raw_clients.close_code(walker, 1)
            if code is None or time.monotonic() > deadline:
                break
            walker.close()
            time.sleep(0.2)
        assert code is None, f"the seventeenth walk was closed with {code}: the broken ones kept their slots"
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        exit_code = server.process.wait(SHUTDOWN_TIMEOUT + 15)
        took = time.monotonic() - started
        print(f"WALK BREAKAGE shutdown: exit {exit_code} after {took:.1f} s")
        assert exit_code == 0 and took < SHUTDOWN_TIMEOUT + 4, "".join(server.lines)[-3000:]
        assert not cluster_running(data_dir)
        walker.close()
    finally:
        server.kill()


def test_an_unmasked_client_frame_closes_the_walk_with_a_protocol_error(server_factory):
    """RFC 6455 5.1: a server closes the connection on a client frame without a mask, also one
    sent right behind the upgrade request; masked ones go on being answered."""
    server = server_factory()
    sock = raw_clients.walk(server)
    raw_clients.send_frame(sock, '{"lat": 48.8566, "lon": 2.3522}')
    assert raw_clients.close_code(sock, 1) is None, "a masked update is answered, not refused"
    raw_clients.send_frame(sock, '{"lat": 48.8566, "lon": 2.3523}', masked=False)
    assert raw_clients.close_code(sock, 5) == 1002
    sock.close()
    # An unmasked frame in the same packet as the upgrade request.
    early = raw_clients.walk(server, raw_clients.frame('{"lat": 48.8566, "lon": 2.3522}', masked=False))
    assert raw_clients.close_code(early, 5) == 1002
    early.close()
    # And a masked one there is read as the first update.
    fine = raw_clients.walk(server, raw_clients.frame('{"lat": 48.8566, "lon": 2.3522}'))
    assert raw_clients.close_code(fine, 2) is None
    fine.close()
