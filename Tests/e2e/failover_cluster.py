"""scripts/cluster driven from a test: the formation, its instances, and the load put on them
(writers with idempotency keys, readers) with what they saw. Used by test_failover.py."""
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import uuid

import requests

from conftest import BINARY, OUTPUT

SCRIPT = os.path.join(os.path.dirname(__file__), "../../scripts/cluster")
PGBIN = "/usr/lib/postgresql/15/bin"
AREA = {"lat": 35.6812, "lon": 139.7671, "radius": 2000}
# The request deadline (5 s) and what a loaded machine may add to it.
DEADLINE = 6.5


def free_run(count):
    """The first port of `count` consecutive free ones."""
    for _ in range(200):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            first = probe.getsockname()[1]
        if first + count > 65000:
            continue
        sockets = []
        try:
            for port in range(first, first + count):
                held = socket.socket()
                sockets.append(held)
                held.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
        finally:
            for held in sockets:
                held.close()
    raise AssertionError("no run of free ports")


class Cluster:
    """A formation made by scripts/cluster in a temporary directory, on free ports."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="noticeboard-cluster-")
        os.chmod(self.dir, 0o755)
        self.http = free_run(3)
        self.env = {**os.environ, "CLUSTER_DIR": self.dir, "CLUSTER_PG_PORT": str(free_run(3)),
                    "CLUSTER_HTTP_PORT": str(self.http), "NOTICEBOARD_BINARY": BINARY,
                    "NOTICEBOARD_POST_RATE_PER_MINUTE": "0"}
        self.proxy = f"http://127.0.0.1:{self.http}"
        self.instances = [f"http://127.0.0.1:{self.http + 1}", f"http://127.0.0.1:{self.http + 2}"]

    def run(self, *args, timeout=180, expect=0):
        done = subprocess.run([SCRIPT, *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        assert done.returncode == expect, f"scripts/cluster {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        return done.stdout + done.stderr

    def node_sql(self, node, query, database="noticeboard"):
        """psql as the superuser over the node's private socket."""
        port = int(self.env["CLUSTER_PG_PORT"]) + (1 if node == "node1" else 2)
        done = subprocess.run(["runuser", "-u", "postgres", "--", f"{PGBIN}/psql", "-X", "-h", f"{self.dir}/pg/run",
                               "-p", str(port), "-d", database, "-Atqc", query], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, f"{node}: {query}: {done.stderr}"
        return done.stdout.strip()

    def monitor(self, query):
        port = self.env["CLUSTER_PG_PORT"]
        done = subprocess.run(["runuser", "-u", "postgres", "--", f"{PGBIN}/psql", "-X", "-h", f"{self.dir}/pg/run",
                               "-p", port, "-d", "pg_auto_failover", "-Atqc", query], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, f"monitor: {query}: {done.stderr}"
        return done.stdout.strip()

    def states(self):
        """{node: 'reported/assigned'} as the monitor has them."""
        rows = self.monitor("SELECT nodename, reportedstate || '/' || goalstate FROM pgautofailover.node ORDER BY nodename")
        return dict(line.split("|") for line in rows.splitlines())

    def named_primary(self):
        for node, state in self.states().items():
            if state.split("/")[1] in ("primary", "wait_primary", "single"):
                return node
        return None

    def wait_states(self, wanted, timeout):
        """Until the monitor reports `wanted` ({node: 'reported/assigned'}); returns the seconds it took."""
        started = time.monotonic()
        while (states := self.states()) != wanted:
            assert time.monotonic() - started < timeout, f"not {wanted} within {timeout} s: {states}"
            time.sleep(0.2)
        return time.monotonic() - started

    def backends(self, node):
        """Backends of the instances' role on a node."""
        return int(self.node_sql(node, "SELECT count(*) FROM pg_stat_activity WHERE usename = 'noticeboard'", "postgres"))

    def log(self, name):
        path = os.path.join(self.dir, "logs", name + ".log")
        with open(path, errors="replace") as file:
            return file.read()

    def close(self):
        try:
            self.run("down", timeout=120)
        finally:
            os.makedirs(OUTPUT, exist_ok=True)
            for name in ("instance1", "instance2", "node1", "node2", "monitor"):
                path = os.path.join(self.dir, "logs", name + ".log")
                if os.path.exists(path):
                    shutil.copy(path, os.path.join(OUTPUT, f"cluster-{name}.log"))
            shutil.rmtree(self.dir, ignore_errors=True)


def post_body(n):
    return {"lat": AREA["lat"] + (n % 100) * 1e-4, "lon": AREA["lon"], "message": f"note {n}", "tag": "food"}


class Workers:
    """Threads that run from `with` until its end (each joined within 30 s)."""

    def __init__(self, target, args):
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=target, args=(arg,), daemon=True) for arg in args]

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        for thread in self.threads:
            thread.join(30)


class Writers(Workers):
    """Threads posting with idempotency keys, round robin over `urls`, until stopped."""

    def __init__(self, urls, threads=4, first=0):
        self.urls = urls
        self.first = first
        self.results = []  # (started, seconds, status, key, body, id)
        self.lock = threading.Lock()
        super().__init__(self.write, range(threads))

    def write(self, worker):
        n = self.first + worker * 1_000_000
        session = requests.Session()
        while not self.stopping.is_set():
            n += 1
            key, body = str(uuid.uuid4()), post_body(n)
            started = time.monotonic()
            try:
                answer = session.post(self.urls[n % len(self.urls)] + "/api/v1/posts", json=body,
                                      headers={"Idempotency-Key": key}, timeout=15)
                status, post_id = answer.status_code, answer.json().get("id") if answer.status_code == 201 else None
                if status != 201 and "error" not in answer.json():
                    status = f"{status} without a JSON error: {answer.text[:200]}"
            except (requests.RequestException, ValueError) as error:
                status, post_id = repr(error), None
            with self.lock:
                self.results.append((started, time.monotonic() - started, status, key, body, post_id))
            time.sleep(0.05)

    def acknowledged(self):
        return [r for r in self.results if r[2] == 201]

    def refused(self):
        return [r for r in self.results if r[2] != 201]

    def longest_gap(self, since=None):
        """Seconds without an acknowledged write (between answers) after `since`."""
        ends = sorted(r[0] + r[1] for r in self.acknowledged() if since is None or r[0] + r[1] >= since)
        return max((b - a for a, b in zip(ends, ends[1:])), default=0.0)


class Readers(Workers):
    """Threads reading nearby from each URL; every answer other than 200 is kept."""

    def __init__(self, urls):
        self.count = 0
        self.failures = []
        super().__init__(self.read, urls)

    def read(self, url):
        session = requests.Session()
        while not self.stopping.is_set():
            try:
                answer = session.get(url + "/api/v1/posts/nearby", params=AREA, timeout=10)
                failure = None if answer.status_code == 200 else f"{url}: {answer.status_code} {answer.text[:200]}"
            except requests.RequestException as error:
                failure = f"{url}: {error!r}"
            self.count += 1
            if failure:
                self.failures.append(failure)
            time.sleep(0.01)


class Sampler(Workers):
    """A thread sampling `measure()` every half second; keeps the values."""

    def __init__(self, measure):
        self.measure = measure
        self.values = []
        super().__init__(self.sample, [None])

    def sample(self, _):
        while not self.stopping.is_set():
            try:
                self.values.append(self.measure())
            except (AssertionError, subprocess.TimeoutExpired):
                pass
            self.stopping.wait(0.5)


def visibility_lags(writer_url, reader_url, samples):
    """Seconds from a 201 on one instance until the post is served by the other."""
    lags = []
    for n in range(samples):
        created = requests.post(writer_url + "/api/v1/posts", json=post_body(9_000_000 + n), timeout=15)
        assert created.status_code == 201, created.text
        post_id, acknowledged = created.json()["id"], time.monotonic()
        while requests.get(f"{reader_url}/api/v1/posts/{post_id}", timeout=5).status_code != 200:
            assert time.monotonic() - acknowledged < 5, f"post {post_id} not on the other instance after 5 s"
            time.sleep(0.01)
        lags.append(time.monotonic() - acknowledged)
    return sorted(lags)


def check_acknowledged(cluster, writers, node):
    """Every post acknowledged is on `node` under its key, and each id returns that post on both instances."""
    stored = dict(line.split("|") for line in cluster.node_sql(node, "SELECT key, post_id FROM idempotency_keys").splitlines())
    acknowledged = writers.acknowledged()
    lost = [r for r in acknowledged if stored.get(r[3]) != str(r[5])]
    assert lost == [], f"{len(lost)} of {len(acknowledged)} acknowledged posts missing on {node}, e.g. {lost[:3]}"
    session = requests.Session()
    wrong = []
    for url in cluster.instances:
        for _, _, _, _, body, post_id in acknowledged:
            answer = session.get(f"{url}/api/v1/posts/{post_id}", timeout=10)
            if answer.status_code != 200 or answer.json().get("message") != body["message"]:
                wrong.append((url, post_id, answer.status_code, answer.text[:120]))
    assert wrong == [], f"{len(wrong)} acknowledged ids do not return their post, e.g. {wrong[:3]}"
    return len(acknowledged)


def retry_refused(cluster, writers):
    """Each refused write, retried with its key, is stored exactly once."""
    for _, _, _, key, body, _ in writers.refused():
        deadline = time.monotonic() + 30
        while (retried := requests.post(cluster.proxy + "/api/v1/posts", json=body, headers={"Idempotency-Key": key},
                                        timeout=15)).status_code not in (200, 201):
            assert time.monotonic() < deadline, f"retry of {key}: {retried.status_code} {retried.text[:200]}"
            time.sleep(0.2)
    messages = [r[4]["message"] for r in writers.results]
    if messages:
        quoted = ",".join(f"'{m}'" for m in messages)
        rows = cluster.run("psql", "-Atc", f"SELECT message, count(*) FROM posts WHERE message IN ({quoted}) GROUP BY message").strip()
        counts = dict(line.split("|") for line in rows.splitlines())
        assert sorted(counts) == sorted(set(messages)), "a write retried with its key is missing"
        assert set(counts.values()) == {"1"}, f"duplicated: {[m for m, c in counts.items() if c != '1'][:5]}"
