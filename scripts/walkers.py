"""The walkers of scripts/bench-walkers: asyncio WebSocket clients written from RFC 6455 (masked
text frames out, any frames in), each walking a random path through the seeded notes and sending
its position twice a second; the server's CPU is read from /proc before and after."""
import asyncio
import base64
import json
import math
import os
import random
import resource
import sys
import time
import urllib.request

URL, PID, WALKERS, SECONDS, NOTES = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
CENTRE = (22.4196, 114.2068)
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds():
    fields = open(f"/proc/{PID}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def wait_ready():
    for _ in range(600):
        try:
            if urllib.request.urlopen(URL + "/readyz", timeout=2).status == 200:
                return
        except Exception:
            pass
        time.sleep(0.1)
    raise SystemExit("the server never became ready")


def seed():
    rng = random.Random(7)
    for start in range(0, NOTES, 500):
        batch = []
        for i in range(start, min(NOTES, start + 500)):
            body = json.dumps({"lat": CENTRE[0] + rng.uniform(-0.01, 0.01), "lon": CENTRE[1] + rng.uniform(-0.01, 0.01),
                               "heading": rng.uniform(0, 359), "message": f"note {i}", "tag": rng.choice(["food", "lifestyle"])}).encode()
            batch.append(body)
        for body in batch:
            request = urllib.request.Request(URL + "/api/v1/posts", data=body, headers={"Content-Type": "application/json"})
            urllib.request.urlopen(request, timeout=30).read()


def frame(text):
    payload = text.encode()
    mask = os.urandom(4)
    header = bytes([0x81])
    if len(payload) < 126:
        header += bytes([0x80 | len(payload)])
    else:
        header += bytes([0x80 | 126]) + len(payload).to_bytes(2, "big")
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def read_frames(reader, counts):
    while True:
        head = await reader.readexactly(2)
        length = head[1] & 0x7F
        if length == 126:
            length = int.from_bytes(await reader.readexactly(2), "big")
        elif length == 127:
            length = int.from_bytes(await reader.readexactly(8), "big")
        payload = await reader.readexactly(length)
        if head[0] & 0x0F == 1:
            kind = payload[9:14]
            counts["enter" if kind == b"enter" else "leave" if kind == b"leave" else "other"] += 1


async def walker(index, host, port, deadline, counts):
    rng = random.Random(index)
    reader, writer = await asyncio.open_connection(host, port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET /api/v1/walk HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    status = await reader.readuntil(b"\r\n\r\n")
    if b" 101 " not in status.split(b"\r\n")[0]:
        counts["refused"] += 1
        return
    counts["open"] += 1
    receiving = asyncio.create_task(read_frames(reader, counts))
    lat, lon = CENTRE[0] + rng.uniform(-0.008, 0.008), CENTRE[1] + rng.uniform(-0.008, 0.008)
    heading = rng.uniform(0, 360)
    await asyncio.sleep(rng.uniform(0, 0.5))
    while time.monotonic() < deadline:
        if writer.is_closing() or receiving.done():
            counts["dropped"] += 1
            return
        heading = (heading + rng.uniform(-20, 20)) % 360
        lat += 0.7 / 111_000 * math.cos(math.radians(heading))
        lon += 0.7 / 111_000 * math.sin(math.radians(heading)) / math.cos(math.radians(lat))
        update = {"lat": lat, "lon": lon, "radius": 100, "facing": heading, "fov": 90}
        writer.write(frame(json.dumps(update)))
        counts["updates"] += 1
        await asyncio.sleep(0.5)
    receiving.cancel()
    writer.close()


async def main():
    host, port = URL.split("//")[1].split(":")
    port = int(port)
    counts = {"open": 0, "refused": 0, "dropped": 0, "updates": 0, "enter": 0, "leave": 0, "other": 0}
    idle_start = cpu_seconds()
    await asyncio.sleep(10)
    idle = (cpu_seconds() - idle_start) / 10
    deadline = time.monotonic() + 5 + SECONDS
    tasks = [asyncio.create_task(walker(i, host, port, deadline, counts)) for i in range(WALKERS)]
    await asyncio.sleep(5)  # all connected and walking
    started, cpu_start, updates_start = time.monotonic(), cpu_seconds(), counts["updates"]
    enters_start, leaves_start = counts["enter"], counts["leave"]
    await asyncio.sleep(SECONDS)
    elapsed = time.monotonic() - started
    busy = (cpu_seconds() - cpu_start) / elapsed
    updates = (counts["updates"] - updates_start) / elapsed
    await asyncio.gather(*tasks, return_exceptions=True)
    print(f"walkers: {counts['open']} open, {counts['refused']} refused, {counts['dropped']} dropped by the server")
    print(f"updates: {updates:.0f}/s; enter {(counts['enter'] - enters_start) / elapsed:.0f}/s, leave {(counts['leave'] - leaves_start) / elapsed:.0f}/s")
    print(f"server CPU: idle {idle * 100:.1f} % of a core, with walkers {busy * 100:.1f} % of a core; "
          f"added {(busy - idle) * 100:.1f} % = {(busy - idle) / max(updates, 1) * 1e6:.0f} µs per update")


# A thousand sockets need more descriptors than the usual soft limit.
resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
wait_ready()
seed()
asyncio.run(main())
