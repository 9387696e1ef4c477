"""The walkers of scripts/bench-walkers: asyncio WebSocket clients written from RFC 6455 (masked
text frames out, any frames in), each walking a random path through the seeded notes and sending
its position every INTERVAL seconds; the server's CPU is read from /proc. Before they walk, the
CPU of a note posted far from all of them is measured with no walker and with all connected."""
import asyncio
import base64
import http.client
import json
import math
import os
import random
import resource
import sys
import time
import urllib.request

URL, PID, WALKERS, SECONDS, NOTES = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
INTERVAL = float(sys.argv[6]) if len(sys.argv) > 6 else 0.5
POST_RATE, POST_SECONDS = 50, 10
CENTRE = (22.4196, 114.2068)
FAR = (-33.8688, 151.2093)
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


def frame(text, opcode=0x1):
    payload = text.encode() if isinstance(text, str) else text
    mask = os.urandom(4)
    header = bytes([0x80 | opcode])
    if len(payload) < 126:
        header += bytes([0x80 | len(payload)])
    else:
        header += bytes([0x80 | 126]) + len(payload).to_bytes(2, "big")
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def read_frames(reader, writer, counts):
    while True:
        head = await reader.readexactly(2)
        length = head[1] & 0x7F
        if length == 126:
            length = int.from_bytes(await reader.readexactly(2), "big")
        elif length == 127:
            length = int.from_bytes(await reader.readexactly(8), "big")
        payload = await reader.readexactly(length)
        if head[0] & 0x0F == 9:  # a ping is answered, as RFC 6455 asks, or the server closes the walk
            writer.write(frame(payload, opcode=0xA))
        if head[0] & 0x0F == 8:
            code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
            counts.setdefault("closed", {}).setdefault(code, 0)
            counts["closed"][code] += 1
        if head[0] & 0x0F == 1:
            kind = payload[9:14]
            counts["enter" if kind == b"enter" else "leave" if kind == b"leave" else "other"] += 1


async def walker(index, host, port, walking, deadline, counts):
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
    receiving = asyncio.create_task(read_frames(reader, writer, counts))
    lat, lon = CENTRE[0] + rng.uniform(-0.008, 0.008), CENTRE[1] + rng.uniform(-0.008, 0.008)
    heading = rng.uniform(0, 360)
    writer.write(frame(json.dumps({"lat": lat, "lon": lon, "radius": 100, "facing": heading, "fov": 90})))
    await walking.wait()
    await asyncio.sleep(rng.uniform(0, INTERVAL))
    while time.monotonic() < deadline[0]:
        if writer.is_closing() or receiving.done():
            counts["dropped"] += 1
            return
        heading = (heading + rng.uniform(-20, 20)) % 360
        lat += 0.7 / 111_000 * math.cos(math.radians(heading))
        lon += 0.7 / 111_000 * math.sin(math.radians(heading)) / math.cos(math.radians(lat))
        update = {"lat": lat, "lon": lon, "radius": 100, "facing": heading, "fov": 90}
        writer.write(frame(json.dumps(update)))
        counts["updates"] += 1
        await asyncio.sleep(INTERVAL)
    receiving.cancel()
    writer.close()


def post_far_away(seconds, rate):
    """Notes posted at `rate` a second on the other side of the world from every walker, on one
    keep-alive connection; returns how many were posted."""
    host, port = URL.split("//")[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    rng = random.Random(11)
    posted, started = 0, time.monotonic()
    while time.monotonic() - started < seconds:
        body = json.dumps({"lat": FAR[0] + rng.uniform(-0.01, 0.01), "lon": FAR[1] + rng.uniform(-0.01, 0.01),
                           "message": f"far note {posted}", "tag": "food"})
        connection.request("POST", "/api/v1/posts", body, {"Content-Type": "application/json"})
        connection.getresponse().read()
        posted += 1
        time.sleep(max(0.0, started + posted / rate - time.monotonic()))
    connection.close()
    return posted


async def cpu_per_post(seconds, rate):
    """The server's CPU a far-away post: a quiet window, then one with posts, the difference
    divided by the posts."""
    quiet_start = cpu_seconds()
    await asyncio.sleep(seconds)
    quiet = (cpu_seconds() - quiet_start) / seconds
    busy_start, started = cpu_seconds(), time.monotonic()
    posted = await asyncio.get_running_loop().run_in_executor(None, post_far_away, seconds, rate)
    busy = (cpu_seconds() - busy_start) / (time.monotonic() - started)
    return (busy - quiet) * (time.monotonic() - started) / max(posted, 1), posted


async def main():
    host, port = URL.split("//")[1].split(":")
    port = int(port)
    counts = {"open": 0, "refused": 0, "dropped": 0, "updates": 0, "enter": 0, "leave": 0, "other": 0}
    alone, posted_alone = await cpu_per_post(POST_SECONDS, POST_RATE)
    walking, deadline = asyncio.Event(), [float("inf")]
    tasks = []
    for index in range(WALKERS):
        tasks.append(asyncio.create_task(walker(index, host, port, walking, deadline, counts)))
        if index % 200 == 199:
            await asyncio.sleep(0.05)  # connect in waves, as a crowd arrives
    while counts["open"] + counts["refused"] < WALKERS:
        await asyncio.sleep(0.2)
    await asyncio.sleep(3)  # every first position answered
    beside, posted_beside = await cpu_per_post(POST_SECONDS, POST_RATE)
    idle_start = cpu_seconds()
    await asyncio.sleep(5)
    idle = (cpu_seconds() - idle_start) / 5
    deadline[0] = time.monotonic() + INTERVAL + SECONDS + 1
    walking.set()
    await asyncio.sleep(INTERVAL)  # every walker under way
    started, cpu_start, updates_start = time.monotonic(), cpu_seconds(), counts["updates"]
    enters_start, leaves_start = counts["enter"], counts["leave"]
    await asyncio.sleep(SECONDS)
    elapsed = time.monotonic() - started
    busy = (cpu_seconds() - cpu_start) / elapsed
    updates = (counts["updates"] - updates_start) / elapsed
    await asyncio.gather(*tasks, return_exceptions=True)
    print(f"walkers: {counts['open']} open, {counts['refused']} refused, {counts['dropped']} dropped by the server"
          f" (close codes {counts.get('closed', {})})")
    print(f"a post far from every walker: {alone * 1e6:.0f} µs of server CPU with no walker ({posted_alone} posts), "
          f"{beside * 1e6:.0f} µs beside {counts['open']} walkers ({posted_beside} posts)")
    print(f"updates: {updates:.0f}/s; enter {(counts['enter'] - enters_start) / elapsed:.0f}/s, leave {(counts['leave'] - leaves_start) / elapsed:.0f}/s")
    print(f"server CPU: walkers connected and still {idle * 100:.1f} % of a core, walking {busy * 100:.1f} % of a core; "
          f"added {(busy - idle) * 100:.1f} % = {(busy - idle) / max(updates, 1) * 1e6:.0f} µs per update")


# A thousand sockets need more descriptors than the usual soft limit.
resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
wait_ready()
seed()
asyncio.run(main())
