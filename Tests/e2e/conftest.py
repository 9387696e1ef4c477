"""Drives the real `noticeboard` binary: real process, real HTTP, real PostgreSQL (the shared one
of `shared_postgres.py`, or an embedded cluster of the test's own where the test is about it)."""
import atexit
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import pytest
import requests

BINARY = os.environ.get("NOTICEBOARD_BINARY", os.path.join(os.path.dirname(__file__), "../../.build/debug/noticeboard"))
OUTPUT = os.path.join(os.path.dirname(__file__), "../../test-output")

# Under pytest-xdist (`--dist loadgroup`) the heavy and timing-sensitive tests (failover, chaos,
# races beside busy loops, connection caps, shutdown deadlines, kills at a given moment) share one
# worker, so they never run beside each other.
HEAVY = pytest.mark.xdist_group("heavy")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Every other test is grouped by its module: a module's fixtures (a board, its browsers) are
    made once, on one worker, and its tests keep their order. The heavy group is handed out first,
    being the longest, so that it does not end the run alone."""
    for item in items:
        if not any(item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
    heavy = [item for item in items if any(mark.args == ("heavy",) for mark in item.iter_markers("xdist_group"))]
    chosen = set(heavy)
    items[:] = heavy + [item for item in items if item not in chosen]
    if getattr(config.option, "loadgroup", False):
        # xdist schedules by the "@group" suffix of a test's id, which pytest-xdist 3.8 writes to
        # `_nodeid`; pytest 9 reads the id from `_id`, so without this every group is ignored.
        try:
            from _pytest.nodeid import coerce_node_id
        except ImportError:
            return  # an older pytest reads `_nodeid`, where xdist writes the suffix
        for item in items:
            group = next(item.iter_markers("xdist_group")).args[0]
            if not item.nodeid.endswith("@" + group):
                item._id = coerce_node_id(f"{item.nodeid}@{group}")


# Servers still running when the test process exits (an interrupted run) are killed then.
_running = set()
# Where every server of this process listened, in order.
server_origins = []


@atexit.register
def _kill_running_servers():
    for server in list(_running):
        server.kill()


class Server:
    """One `noticeboard serve` process on a free port; its output is kept for the failure report.
    With `database_url` it uses that database; without, the embedded cluster under `data_dir`."""

    def __init__(self, data_dir, *extra, database_url=None, env=None, https=False, preexec_fn=None):
        self.data_dir = data_dir
        self.database_url = database_url
        self.verify = next((extra[i + 1] for i, arg in enumerate(extra) if arg == "--tls-cert"), True) if https else True
        self.lines = []
        self.url = None
        ready = threading.Event()
        database = ["--database-url", database_url] if database_url else []
        self.process = subprocess.Popen(
            [BINARY, "serve", "--port", "0", "--data-dir", data_dir, *database, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, **(env or {})}, preexec_fn=preexec_fn)
        _running.add(self)

        def read():
            for line in self.process.stdout:
                self.lines.append(line)
                match = re.search(r"listening on (https?://\S+)", line)
                if match:
                    self.url = match.group(1)
                    server_origins.append(self.url)
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(120) or self.url is None:
            self.kill()
            raise AssertionError("server did not start:\n" + "".join(self.lines))
        try:
            self.wait_ready()
        except AssertionError:
            self.stop()  # never leave a server (and its cluster) behind
            raise

    def wait_ready(self, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if requests.get(self.url + "/readyz", timeout=2, verify=self.verify).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.1)
        raise AssertionError("server never became ready:\n" + "".join(self.lines))

    def stop(self, timeout=60):
        """SIGTERM: graceful shutdown, which also stops the embedded cluster."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout)
        _running.discard(self)
        return self.process.returncode

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)
        _running.discard(self)

    def post(self, body, **kwargs):
        return requests.post(self.url + "/api/v1/posts", json=body, timeout=30, **kwargs)

    def post_json(self, path, body, **kwargs):
        return requests.post(self.url + path, json=body, timeout=30, **kwargs)

    def get(self, path, **kwargs):
        return requests.get(self.url + path, timeout=30, **kwargs)


def wait_until(predicate, limit, what):
    """`predicate`'s first true answer, asked every 50 ms for at most `limit` seconds."""
    deadline = time.monotonic() + limit
    while True:
        answer = predicate()
        if answer:
            return answer
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {limit} s")
        time.sleep(0.05)


def stream_subscribers(server):
    """Live streams open on `server`, from its metrics."""
    for line in server.get("/metrics").text.splitlines():
        if line.startswith("noticeboard_stream_subscribers "):
            return float(line.split()[1])
    return 0


def wait_for_streams(server, count, limit=10):
    """Until `count` live streams are subscribed on `server`: a change made afterwards reaches them."""
    wait_until(lambda: stream_subscribers(server) >= count, limit, f"{count} streams open on {server.url}")


def add_moderator(database_url, name, password):
    """`noticeboard moderator add` against a running database; the password comes on standard input."""
    added = subprocess.run([BINARY, "moderator", "add", name, "--database-url", database_url], input=password + "\n",
                           capture_output=True, text=True, timeout=120)
    assert added.returncode == 0, added.stderr


def cluster_running(data_dir):
    """Whether a postmaster runs on the data directory's embedded cluster."""
    pid_file = os.path.join(data_dir, "postgres", "postmaster.pid")
    if not os.path.exists(pid_file):
        return False
    with open(pid_file) as handle:
        pid = int(handle.readline().strip() or 0)
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


_shared = None


def shared_postgres():
    """This test process's PostgreSQL (`shared_postgres.SharedPostgres`), started at first use."""
    global _shared
    if _shared is None:
        from shared_postgres import SharedPostgres
        _shared = SharedPostgres(BINARY)
    return _shared


@pytest.fixture(scope="session", autouse=True)
def _stop_shared_postgres():
    yield
    if _shared is not None:
        _shared.stop()


@pytest.fixture
def database_url():
    """A fresh migrated database on the shared PostgreSQL, dropped after the test."""
    url = shared_postgres().create()
    yield url
    shared_postgres().drop(url)


def new_data_dir():
    directory = tempfile.mkdtemp(prefix="noticeboard-e2e-")
    os.chmod(directory, 0o755)
    return directory


def stop_left_cluster(data_dir):
    """Never leave a cluster behind: one a test left running under `data_dir` is stopped at once
    (immediate mode: nothing in it is kept, and a postmaster already shutting down needs no more)."""
    if not cluster_running(data_dir):
        return
    from shared_postgres import postgres_binaries
    command = [os.path.join(postgres_binaries(), "pg_ctl"), "-D", os.path.join(data_dir, "postgres"), "-m", "immediate", "-w", "-t", "30", "stop"]
    if os.geteuid() == 0:
        command = ["runuser", "-u", "postgres", "--", *command]
    subprocess.run(command, capture_output=True, timeout=60)


@pytest.fixture
def data_dir():
    directory = new_data_dir()
    yield directory
    stop_left_cluster(directory)
    shutil.rmtree(directory, ignore_errors=True)


def _servers(data_dir, database_url):
    servers = []

    def start(*extra, env=None, https=False):
        server = Server(data_dir, *extra, database_url=database_url, env=env, https=https)
        servers.append(server)
        return server

    yield start
    for server in servers:
        try:
            server.stop()
        except Exception:
            server.kill()
    os.makedirs(OUTPUT, exist_ok=True)
    with open(os.path.join(OUTPUT, "e2e-server.log"), "a") as log:
        for server in servers:
            log.writelines(server.lines)


@pytest.fixture
def server_factory(data_dir, database_url):
    """Servers on the test's own database of the shared PostgreSQL (all of a test's servers share it)."""
    yield from _servers(data_dir, database_url)


@pytest.fixture
def embedded_server_factory(data_dir):
    """Servers on the embedded cluster under the test's data directory: for the tests about that cluster."""
    yield from _servers(data_dir, None)


def stop_and_clean(server, data_dir, database_url=None):
    """Stops a test's own server (its output joins the e2e log) and removes its data directory,
    never leaving a cluster behind, and its database on the shared PostgreSQL if it had one."""
    if server:
        server.stop()
        os.makedirs(OUTPUT, exist_ok=True)
        with open(os.path.join(OUTPUT, "e2e-server.log"), "a") as log:
            log.writelines(server.lines)
    stop_left_cluster(data_dir)
    shutil.rmtree(data_dir, ignore_errors=True)
    if database_url:
        shared_postgres().drop(database_url)


@pytest.fixture(scope="module")
def browsers():
    """The Chromium sessions of a module's page tests (`pages.Browsers`), handed on from test to test."""
    from pages import Browsers
    first = len(server_origins)
    # The sites its sessions can have seen: the servers running, and those started since.
    started = Browsers(lambda: {server.url for server in _running if server.url} | set(server_origins[first:]))
    yield started
    started.quit()


@pytest.fixture(autouse=True)
def _hand_back_browsers(request):
    """After a test that used `browsers`, its sessions are reset and wait for the module's next test."""
    yield
    if "browsers" in request.fixturenames:
        request.getfixturevalue("browsers").release()
