"""Server CPU per request: wrk (one thread) against one kind of request while the server's
user+system CPU is read from /proc before and after. Prints one JSON line.
Usage: request_cost.py PID URL QUERIES_CSV KIND SECONDS [CONNECTIONS=16]"""
import json
import os
import subprocess
import sys

pid, url, queries, kind, seconds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
connections = int(sys.argv[6]) if len(sys.argv) > 6 else 16
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cost.lua")


def cpu_seconds():
    """utime + stime of the whole process, all threads (fields 14 and 15 of /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


before = cpu_seconds()
out = subprocess.run(
    ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "-s", script, url, "--", queries, kind],
    capture_output=True, text=True, check=True, cwd=os.path.dirname(os.path.dirname(os.path.dirname(script))))
used = cpu_seconds() - before
summary = json.loads(out.stdout.strip().splitlines()[-1])
requests = summary["requests"]
print(json.dumps({
    "kind": kind, "requests": requests, "rps": summary["rps"], "p99_ms": summary["p99_ms"],
    "errors": summary["non_2xx"] + summary["socket_errors"],
    "cpu_us_per_request": round(used / max(requests, 1) * 1e6, 1),
}))
