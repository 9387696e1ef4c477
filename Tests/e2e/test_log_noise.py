"""Issue 37: connections closed before a full request head (by the client, or timed out) are
counted, and logged at debug, not as "Error handling upgrade result" at error level."""
import socket
import struct
import time

import raw_clients


def metric(server, name):
    total = 0.0
    for line in server.get("/metrics").text.splitlines():
        if line.startswith(name) and not line.startswith("#"):
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_connections_without_a_request_are_counted_not_logged_as_errors(server_factory):
    server = server_factory("--idle-timeout", "1")
    socks = []
    for index in range(30):
        sock = raw_clients.connect(server)
        if index % 3 == 0:
            sock.sendall(b"GET /api/v1/posts/near")
        elif index % 3 == 1:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            # A reset rather than a close.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
            continue
        socks.append(sock)
    time.sleep(2.5)  # the rest time out (idle timeout 1 s)
    for sock in socks:
        sock.close()
    time.sleep(0.5)
    output = "".join(server.lines)
    counted = metric(server, "noticeboard_connections_without_request_total")
    print(f"NOISE 30 connections without a full head: counted {counted:.0f}, error lines {output.count('Error handling upgrade result')}")
    assert "Error handling upgrade result" not in output
    assert counted >= 10, counted
