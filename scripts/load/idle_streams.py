#!/usr/bin/env python3
"""Opens N Server-Sent Event streams and keeps them open without reading much (idle clients).
Usage: idle_streams.py URL N SECONDS"""
import socket
import sys
import time
from urllib.parse import urlparse

url, count, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
target = urlparse(url)
sockets = []
for index in range(count):
    connection = socket.create_connection((target.hostname, target.port), timeout=10)
    lat, lon = 48.85 + (index % 100) / 1000, 2.35 + (index // 100) / 1000
    connection.sendall(f"GET /api/v1/posts/stream?lat={lat}&lon={lon}&radius=500 HTTP/1.1\r\nHost: {target.hostname}\r\n\r\n".encode())
    sockets.append(connection)
ok = sum(1 for connection in sockets if connection.recv(4096).startswith(b"HTTP/1.1 200"))
print(f"{ok} of {count} streams open", flush=True)
time.sleep(seconds)
for connection in sockets:
    connection.close()
