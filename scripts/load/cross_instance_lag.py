"""Cross-instance visibility: posts made on instance A, timed until they arrive on instance B's
live stream. Run it while a write load runs. Usage: cross_instance_lag.py URL_A URL_B COUNT"""
import json
import sys
import threading
import time
import urllib.request

A, B, COUNT = sys.argv[1], sys.argv[2], int(sys.argv[3])
BOX = "-10.0,-10.0,-9.9,-9.9"  # away from the write load's city: B's stream hears only these
heard = {}
ready = threading.Event()


def listen():
    with urllib.request.urlopen(f"{B}/api/v1/posts/stream?bbox={BOX}", timeout=120) as stream:
        ready.set()
        for raw in stream:
            line = raw.decode().strip()
            if line.startswith("data: "):
                heard.setdefault(json.loads(line[6:])["id"], time.monotonic())
            if len(heard) >= COUNT:
                return


threading.Thread(target=listen, daemon=True).start()
ready.wait(10)
time.sleep(0.3)
made = {}
for index in range(COUNT):
    body = json.dumps({"lat": -9.95, "lon": -9.95, "message": f"lag probe {index}", "tag": "probe"}).encode()
    request = urllib.request.Request(f"{A}/api/v1/posts", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        made[json.load(response)["id"]] = time.monotonic()
    time.sleep(0.02)
deadline = time.monotonic() + 10
while len(heard) < COUNT and time.monotonic() < deadline:
    time.sleep(0.05)
lags = sorted(max(0.0, heard[i] - at) * 1000 for i, at in made.items() if i in heard)
missing = COUNT - len(lags)
pick = lambda q: lags[min(len(lags) - 1, int(len(lags) * q))] if lags else float("nan")
print(json.dumps({"probes": COUNT, "missing": missing, "p50_ms": round(pick(0.5), 1), "p99_ms": round(pick(0.99), 1),
                  "max_ms": round(lags[-1], 1) if lags else None}))
