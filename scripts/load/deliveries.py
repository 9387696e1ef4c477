"""The push fan-out of scripts/bench-deliveries: S push subscriptions (each with its own keys,
as browsers make them) over one area, P notes posted there at once, and a push service of our
own on loopback (asyncio, HTTP/1.1 keep-alive, answering 201) counting what arrives. One push in
SAMPLE is decrypted (RFC 8291) and must name a posted note; the CPU of the server, of its
PostgreSQL and of this process (the push services) comes from /proc, to see which one the
machine's cores ran out for."""
import asyncio
import base64
import json
import os
import random
import resource
import sys
import threading
import time
import urllib.error
import urllib.request

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

URL, PID, SUBSCRIPTIONS, POSTS, SERVICES = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
POSTMASTER_PID_FILE = sys.argv[6] if len(sys.argv) > 6 else None
CENTRE = (48.8566, 2.3522)
SAMPLE = 97
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid=PID):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def database_cpu_seconds():
    """The embedded PostgreSQL's postmaster and its children (backends, writers) together."""
    if not POSTMASTER_PID_FILE or not os.path.exists(POSTMASTER_PID_FILE):
        return 0.0
    postmaster = int(open(POSTMASTER_PID_FILE).readline())
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            if int(entry) == postmaster or int(fields[1]) == postmaster:
                total += (int(fields[11]) + int(fields[12])) / TICKS
        except (OSError, ValueError):
            continue
    return total


def own_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def call(method, path, body=None, headers=None):
    request = urllib.request.Request(URL + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raise SystemExit(f"{method} {path} answered {error.code}: {error.read().decode()}")


class PushService:
    """Counts pushes per subscription path; keeps the arrival times and a sample of bodies. An
    asyncio protocol (not streams): the receiver must cost the machine less than the server."""

    def __init__(self):
        self.arrivals = []
        self.by_path = {}
        self.samples = []
        self.lock = threading.Lock()

    def protocol(self):
        service = self

        class Connection(asyncio.Protocol):
            def connection_made(self, transport):
                self.transport, self.buffer = transport, b""

            def data_received(self, data):
                self.buffer += data
                while True:
                    end = self.buffer.find(b"\r\n\r\n")
                    if end < 0:
                        return
                    head = self.buffer[:end]
                    at = head.lower().find(b"content-length:")
                    length = int(head[at + 15:head.find(b"\r\n", at) if head.find(b"\r\n", at) > 0 else None]) if at >= 0 else 0
                    if len(self.buffer) < end + 4 + length:
                        return
                    body = self.buffer[end + 4:end + 4 + length]
                    self.buffer = self.buffer[end + 4 + length:]
                    path = head[head.find(b" ") + 1:head.find(b" ", head.find(b" ") + 1)].decode()
                    now = time.monotonic()
                    with service.lock:
                        service.arrivals.append(now)
                        service.by_path[path] = service.by_path.get(path, 0) + 1
                        if len(service.arrivals) % SAMPLE == 1:
                            service.samples.append((path, body))
                    self.transport.write(b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")

        return Connection


def run_service(service, ports, ready):
    async def main():
        loop = asyncio.get_running_loop()
        servers = [await loop.create_server(service.protocol(), "127.0.0.1", 0, backlog=1024) for _ in range(SERVICES)]
        ports.extend(server.sockets[0].getsockname()[1] for server in servers)
        ready.set()
        await asyncio.Event().wait()
    asyncio.run(main())


def main():
    for _ in range(600):
        try:
            if urllib.request.urlopen(URL + "/readyz", timeout=2).status == 200:
                break
        except Exception:
            time.sleep(0.1)
    service, ports, ready = PushService(), [], threading.Event()
    threading.Thread(target=run_service, args=(service, ports, ready), daemon=True).start()
    ready.wait(10)
    keys = {}
    rng = random.Random(5)
    for index in range(SUBSCRIPTIONS):
        private = ec.generate_private_key(ec.SECP256R1())
        public = private.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        auth = os.urandom(16)
        path = f"/push/{index}"
        keys[path] = (private, auth)
        # Several push services, as browsers of several makers bring; each subscriber its own address.
        endpoint = f"http://127.0.0.1:{ports[index % len(ports)]}{path}"
        area = {"lat": CENTRE[0] + rng.uniform(-0.005, 0.005), "lon": CENTRE[1] + rng.uniform(-0.005, 0.005), "radius": 2000}
        call("POST", "/api/v1/push/subscriptions",
             {"subscription": {"endpoint": endpoint, "keys": {"p256dh": b64url(public), "auth": b64url(auth)}}, "area": area},
             {"X-Forwarded-For": f"10.{index >> 16 & 255}.{index >> 8 & 255}.{index & 255}", "X-Device-Key": f"bench-device-{index:08d}"})
    time.sleep(2)  # the subscriptions are in every instance's target index
    expected = SUBSCRIPTIONS * POSTS
    cpu_before, database_before, own_before, started = cpu_seconds(), database_cpu_seconds(), own_cpu_seconds(), time.monotonic()
    posted = set()
    for index in range(POSTS):
        note = call("POST", "/api/v1/posts", {"lat": CENTRE[0], "lon": CENTRE[1], "message": f"fan-out note {index}", "tag": "food"})
        posted.add(note["id"])
    deadline = time.monotonic() + 600
    while len(service.arrivals) < expected and time.monotonic() < deadline:
        time.sleep(0.05)
    cpu = cpu_seconds() - cpu_before
    database_cpu, own_cpu = database_cpu_seconds() - database_before, own_cpu_seconds() - own_before
    load = os.getloadavg()[0]
    with service.lock:
        arrivals = sorted(service.arrivals)
        by_path = dict(service.by_path)
        samples = list(service.samples)
    if not arrivals:
        raise SystemExit("no push arrived")
    elapsed = arrivals[-1] - started
    tenth, ninetieth = arrivals[len(arrivals) // 10], arrivals[len(arrivals) * 9 // 10]
    steady = (len(arrivals) * 8 // 10) / max(ninetieth - tenth, 1e-9)
    decrypted = 0
    for path, body in samples:
        private, auth = keys[path]
        payload = json.loads(http_ece.decrypt(body, private_key=private, auth_secret=auth, version="aes128gcm"))
        assert payload["post"]["id"] in posted, payload
        decrypted += 1
    short = sum(1 for path in keys if by_path.get(path, 0) < POSTS)
    extra = sum(max(0, count - POSTS) for count in by_path.values())
    print(f"pushes: {len(arrivals)} of {expected} arrived ({short} subscriptions short, {extra} repeated), "
          f"{decrypted} sampled pushes decrypted and checked")
    print(f"deliveries: {len(arrivals) / elapsed:.0f}/s from the first post to the last push ({elapsed:.1f} s); "
          f"{steady:.0f}/s between the 10th and 90th percentile of arrivals")
    print(f"server CPU: {cpu:.1f} s, {cpu / max(len(arrivals), 1) * 1e6:.0f} µs a delivery")
    print(f"PostgreSQL CPU: {database_cpu:.1f} s, {database_cpu / max(len(arrivals), 1) * 1e6:.0f} µs a delivery; "
          f"push services (this process) CPU: {own_cpu:.1f} s, {own_cpu / max(len(arrivals), 1) * 1e6:.0f} µs a delivery; "
          f"cores used: {(cpu + database_cpu + own_cpu) / elapsed:.2f} of {os.cpu_count()}; load average {load:.2f}")


main()
