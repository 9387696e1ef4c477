"""CPU ticks of PostgreSQL's processes between two moments, counting only what each process used
in between: a backend that exits meanwhile takes its ticks with it, which a plain sum would
count as negative. Usage: postgres_cpu.py snapshot FILE; postgres_cpu.py since FILE (prints ticks)."""
import json
import os
import sys


def ticks():
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                name, rest = f.read().split(") ", 1)
            fields = rest.split()
            if name.endswith("(postgres"):
                found[pid] = [int(fields[11]) + int(fields[12]), fields[19]]  # utime+stime, start time
        except (OSError, ValueError):
            pass
    return found


command, path = sys.argv[1], sys.argv[2]
if command == "snapshot":
    with open(path, "w") as f:
        json.dump(ticks(), f)
else:
    with open(path) as f:
        before = json.load(f)
    used = 0
    for pid, (now, started) in ticks().items():
        then = before.get(pid)
        used += now - then[0] if then and then[1] == started else now
    print(used)
