"""Drives the real `noticeboard` binary: real process, real HTTP, real embedded PostgreSQL."""
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


class Server:
    """One `noticeboard serve` process on a free port; its output is kept for the failure report."""

    def __init__(self, data_dir, *extra, env=None, https=False, preexec_fn=None):
        self.data_dir = data_dir
        self.verify = next((extra[i + 1] for i, arg in enumerate(extra) if arg == "--tls-cert"), True) if https else True
        self.lines = []
        self.url = None
        ready = threading.Event()
        self.process = subprocess.Popen(
            [BINARY, "serve", "--port", "0", "--data-dir", data_dir, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, **(env or {})}, preexec_fn=preexec_fn)

        def read():
            for line in self.process.stdout:
                self.lines.append(line)
                match = re.search(r"listening on (https?://\S+)", line)
                if match:
                    self.url = match.group(1)
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
        return self.process.returncode

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)

    def post(self, body, **kwargs):
        return requests.post(self.url + "/api/v1/posts", json=body, timeout=30, **kwargs)

    def post_json(self, path, body, **kwargs):
        return requests.post(self.url + path, json=body, timeout=30, **kwargs)

    def get(self, path, **kwargs):
        return requests.get(self.url + path, timeout=30, **kwargs)


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


@pytest.fixture
def data_dir():
    directory = tempfile.mkdtemp(prefix="noticeboard-e2e-")
    os.chmod(directory, 0o755)
    yield directory
    # Never leave a cluster behind: a short command adopts a cluster whose owner died and stops it.
    if cluster_running(directory):
        subprocess.run([BINARY, "migrate", "--data-dir", directory], capture_output=True, timeout=120)
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def server_factory(data_dir):
    servers = []

    def start(*extra, env=None, https=False):
        server = Server(data_dir, *extra, env=env, https=https)
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


def stop_and_clean(server, data_dir):
    """Stops a test's own server (its output joins the e2e log) and removes its data directory,
    never leaving a cluster behind."""
    if server:
        server.stop()
        os.makedirs(OUTPUT, exist_ok=True)
        with open(os.path.join(OUTPUT, "e2e-server.log"), "a") as log:
            log.writelines(server.lines)
    if cluster_running(data_dir):
        subprocess.run([BINARY, "migrate", "--data-dir", data_dir], capture_output=True, timeout=120)
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def browsers():
    """A phone and a desktop Chromium shared by a module's page tests (`pages.Browsers`)."""
    from pages import Browsers
    started = Browsers()
    yield started
    started.quit()
