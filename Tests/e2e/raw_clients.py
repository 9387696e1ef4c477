"""Raw sockets in the states clients leave connections in: half-sent heads and bodies, streams,
and walks (WebSocket) spoken frame by frame, so a test sees exactly what the server sends."""
import os
import socket
import struct
import time


def address(server):
    host, port = server.url.removeprefix("http://").split(":")
    return host, int(port)


def connect(server, source="127.0.0.1"):
    return socket.create_connection(address(server), timeout=10, source_address=(source, 0))


def half_sent_head(server):
    sock = connect(server)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: a")
    return sock


def half_sent_body(server):
    sock = connect(server)
    sock.sendall(b"POST /api/v1/posts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"lat\":")
    return sock


def stream(server):
    sock = connect(server)
    sock.sendall(b"GET /api/v1/posts/stream?lat=1&lon=1&radius=100 HTTP/1.1\r\nHost: x\r\n\r\n")
    assert sock.recv(20).startswith(b"HTTP/1.1 200")
    return sock


WALK_HANDSHAKE = (b"GET /api/v1/walk HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


def walk(server, first_frames=b""):
    """A walk's WebSocket after its handshake (no update sent, unless `first_frames` go in the
    same packet as the upgrade request)."""
    sock = connect(server)
    sock.sendall(WALK_HANDSHAKE + first_frames)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        assert chunk, "closed during the handshake"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def frame(payload, opcode=0x1, fin=True, masked=True):
    """A client frame's bytes: masked, as RFC 6455 requires, unless a test breaks the rule."""
    data = payload.encode() if isinstance(payload, str) else payload
    head = bytes([(0x80 if fin else 0) | opcode])
    flag = 0x80 if masked else 0
    if len(data) < 126:
        head += bytes([flag | len(data)])
    else:
        head += bytes([flag | 126]) + struct.pack("!H", len(data))
    if not masked:
        return head + data
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def send_frame(sock, payload, opcode=0x1, fin=True, masked=True):
    sock.sendall(frame(payload, opcode, fin, masked))


def close_code(sock, limit):
    """The code of the close frame the server sends within `limit` seconds (other frames are
    skipped), or None when the connection ends without one or nothing comes."""
    sock.settimeout(limit)
    deadline = time.monotonic() + limit
    buffer = b""
    try:
        while time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                return None
            buffer += chunk
            while len(buffer) >= 2:
                opcode, length = buffer[0] & 0x0F, buffer[1] & 0x7F
                offset = 2
                if length == 126:
                    length, offset = struct.unpack("!H", buffer[2:4])[0], 4
                elif length == 127:
                    length, offset = struct.unpack("!Q", buffer[2:10])[0], 10
                if len(buffer) < offset + length:
                    break
                if opcode == 0x8:
                    return struct.unpack("!H", buffer[offset:offset + 2])[0] if length >= 2 else 1005
                buffer = buffer[offset + length:]
    except (socket.timeout, ConnectionResetError):
        return None
    return None


def closed_within(sock, limit):
    """Whether the server closes the connection (EOF or reset) within `limit` seconds."""
    sock.settimeout(limit)
    deadline = time.monotonic() + limit
    try:
        while time.monotonic() < deadline:
            if not sock.recv(65536):
                return True
    except socket.timeout:
        return False
    except OSError:
        return True
    return False
