#!/usr/bin/env python3
"""Nearby over HTTP and JSON side by side with Redis GEOSEARCH and PostGIS (KNN), through the
anchor benchmark's own client harness (../shared/bench/bench.py): the same 2000 queries, the
same client processes and timing, one more engine.
Usage: compare_anchors.py REDIS_PORT PG_DSN SERVER_URL queries.csv M CLIENTS OUT.json [ROUNDS=1]"""
import csv
import http.client
import json
import os
import sys
from urllib.parse import urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../shared/bench"))
import bench  # noqa: E402  (the shared harness)

anchor_runner = bench.make_runner


# Full post objects (the contract's default), and only what the anchors send back: the id and
# the distance (`fields=`, an extension), as PostGIS's `SELECT id, ST_Distance(…)` and Redis'
# WITHDIST do. Each through libcurl (pycurl), a C client as psycopg's libpq is; the full objects
# also through Python's own http.client, whose header parsing alone costs more client CPU than
# the server spends on the answer.
NOTICEBOARD_ENGINES = {
    "noticeboard_http": ("curl", ""),
    "noticeboard_http_id_distance": ("curl", "&fields=id,distance"),
    "noticeboard_http_stdlib_client": ("stdlib", ""),
}


def make_runner(engine, rport, dsn):
    if engine not in NOTICEBOARD_ENGINES:
        return anchor_runner(engine, rport, dsn)
    client, extra = NOTICEBOARD_ENGINES[engine]
    path = "/api/v1/posts/nearby?lat={}&lon={}&radius={}&limit=" + str(bench.LIMIT) + extra
    # One keep-alive connection per client process, like the anchors' redis-py and psycopg.
    if client == "curl":
        import pycurl
        from io import BytesIO
        curl = pycurl.Curl()
        curl.setopt(pycurl.TCP_NODELAY, 1)

        def run(query):
            body = BytesIO()
            curl.setopt(pycurl.URL, SERVER_URL + path.format(*query[:3]))
            curl.setopt(pycurl.WRITEDATA, body)
            curl.perform()
            status = curl.getinfo(pycurl.RESPONSE_CODE)
            if status != 200:
                raise RuntimeError(f"nearby answered {status}: {body.getvalue()[:200]!r}")
            return json.loads(body.getvalue())["posts"]
        return run
    address = urlsplit(SERVER_URL)
    connection = http.client.HTTPConnection(address.hostname, address.port)

    def run(query):
        connection.request("GET", path.format(*query[:3]))
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(f"nearby answered {response.status}: {body[:200]!r}")
        return json.loads(body)["posts"]
    return run


bench.make_runner = make_runner  # the harness's worker processes are forked after this

if __name__ == "__main__":
    rport, dsn, SERVER_URL, qfile, m, clients, out = sys.argv[1:8]
    rounds = int(sys.argv[8]) if len(sys.argv) > 8 else 1
    bench.M = int(m)
    with open(qfile) as handle:
        queries = [(float(r["lat"]), float(r["lon"]), float(r["radius_m"]), r["kind"]) for r in csv.DictReader(handle)]
    runs = []
    engines = os.environ.get("ENGINES", "noticeboard_http,noticeboard_http_id_distance,noticeboard_http_stdlib_client,redis_geosearch,redis_geosearch_withdist,pg_dwithin_knn")
    # Rounds interleave the engines, so a noisy minute on a shared machine hurts all of them
    # alike; the table gives each engine's median round (by queries/s).
    for round_number in range(rounds):
        for engine in engines.split(","):
            for k in [int(x) for x in clients.split(",")]:
                run = bench.measure(engine, k, int(rport), dsn, queries)
                run["round"] = round_number + 1
                runs.append(run)
                print(json.dumps(run), flush=True)
    json.dump(runs, open(out, "w"), indent=1)
    print(f"\n| engine | clients | queries/s (median of {rounds}) | all rounds | p50 ms | p99 ms |\n|---|---|---|---|---|---|")
    for engine in engines.split(","):
        for k in [int(x) for x in clients.split(",")]:
            mine = sorted((r for r in runs if r["engine"] == engine and r["clients"] == k), key=lambda r: r["qps"])
            median = mine[len(mine) // 2]
            print(f"| {engine} | {k} | {median['qps']} | {' / '.join(str(r['qps']) for r in mine)} | {median['p50_ms']} | {median['p99_ms']} |")
