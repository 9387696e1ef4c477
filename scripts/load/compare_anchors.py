#!/usr/bin/env python3
"""Nearby over HTTP and JSON side by side with Redis GEOSEARCH and PostGIS (KNN), through the
anchor benchmark's own client harness (../shared/bench/bench.py): the same 2000 queries, the
same client processes and timing, one more engine.
Usage: compare_anchors.py REDIS_PORT PG_DSN SERVER_URL queries.csv M CLIENTS OUT.json"""
import csv
import json
import os
import sys

import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../shared/bench"))
import bench  # noqa: E402  (the shared harness)

anchor_runner = bench.make_runner


def make_runner(engine, rport, dsn):
    if engine != "noticeboard_http":
        return anchor_runner(engine, rport, dsn)
    session = requests.Session()  # one keep-alive connection per client process, like the anchors' clients
    url = SERVER_URL + "/api/v1/posts/nearby"

    def run(query):
        response = session.get(url, params={"lat": query[0], "lon": query[1], "radius": query[2], "limit": bench.LIMIT})
        response.raise_for_status()
        return response.json()["posts"]
    return run


bench.make_runner = make_runner  # the harness's worker processes are forked after this

if __name__ == "__main__":
    rport, dsn, SERVER_URL, qfile, m, clients, out = sys.argv[1:8]
    bench.M = int(m)
    with open(qfile) as handle:
        queries = [(float(r["lat"]), float(r["lon"]), float(r["radius_m"]), r["kind"]) for r in csv.DictReader(handle)]
    runs = []
    for engine in ("noticeboard_http", "redis_geosearch", "redis_geosearch_withdist", "pg_dwithin_knn"):
        for k in [int(x) for x in clients.split(",")]:
            runs.append(bench.measure(engine, k, int(rport), dsn, queries))
            print(json.dumps(runs[-1]), flush=True)
    json.dump(runs, open(out, "w"), indent=1)
    print("\n| engine | clients | queries/s | p50 ms | p99 ms |\n|---|---|---|---|---|")
    for run in runs:
        print(f"| {run['engine']} | {run['clients']} | {run['qps']} | {run['p50_ms']} | {run['p99_ms']} |")
