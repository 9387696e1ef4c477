"""The PostgreSQL the end-to-end tests share: one cluster per test process (each pytest-xdist
worker has its own), a template database migrated once, and a fresh database copied from it for
each test or board. Only the tests about the embedded cluster start clusters of their own."""
import atexit
import glob
import itertools
import os
import shutil
import socket
import subprocess
import sys
import tempfile

TEMPLATE = "noticeboard_template"
USER = "noticeboard"
# Trust authentication on a private loopback port: the URL still carries a password, as the
# server's URLs do, but nothing checks it.
PASSWORD = "e2e"

# Watches the test process from outside: if it dies without its atexit (SIGKILL, say), the
# cluster is stopped and removed all the same. It polls once a second, and ends with its cluster.
WATCHDOG = """
import os, shutil, subprocess, sys, time
parent, pg_ctl, cluster, root = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
while alive(parent) and os.path.exists(cluster):
    time.sleep(1)
if os.path.exists(os.path.join(cluster, "postmaster.pid")):
    command = [pg_ctl, "-D", cluster, "-m", "immediate", "-w", "-t", "30", "stop"]
    subprocess.run((["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []) + command, capture_output=True)
shutil.rmtree(root, ignore_errors=True)
"""


def postgres_binaries():
    """Where the server finds them too: NOTICEBOARD_POSTGRES_BIN, PATH, then the newest of Debian's versioned directories."""
    configured = os.environ.get("NOTICEBOARD_POSTGRES_BIN")
    if configured:
        return configured
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return os.path.dirname(os.path.realpath(on_path))
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda path: int(path.split("/")[4]), reverse=True)
    assert versions, "PostgreSQL's initdb not found (scripts/install-system-packages installs it)"
    return os.path.dirname(versions[0])


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SharedPostgres:
    """A cluster under a temporary directory, on a free loopback port and a private Unix socket,
    with fsync off (a test's data need not survive a power cut)."""

    def __init__(self, binary):
        self.binaries = postgres_binaries()
        self.root = tempfile.mkdtemp(prefix="noticeboard-e2e-postgres-")
        self.cluster = os.path.join(self.root, "cluster")
        self.log = os.path.join(self.root, "postgres.log")
        self.port = free_port()
        self.names = (f"e2e_{os.getpid()}_{number}" for number in itertools.count(1))
        # PostgreSQL refuses to run as root: under root the cluster belongs to `postgres`.
        self.run_as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.run_as:
            shutil.chown(self.root, "postgres", "postgres")
        self.stopped = False
        atexit.register(self.stop)
        subprocess.Popen([sys.executable, "-c", WATCHDOG, str(os.getpid()), self.tool("pg_ctl"), self.cluster, self.root],
                         start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.run("initdb", "-D", self.cluster, "-U", USER, "--auth", "trust", "-E", "UTF8", "--locale", "C", "--no-sync",
                 "--no-instructions")
        with open(os.path.join(self.cluster, "postgresql.conf"), "a") as conf:
            conf.write(f"""
listen_addresses = '127.0.0.1'
port = {self.port}
unix_socket_directories = '{self.root}'
max_connections = 400
fsync = off
synchronous_commit = off
full_page_writes = off
""")
        self.run("pg_ctl", "-D", self.cluster, "-l", self.log, "-w", "-t", "60", "start")
        self.sql(f"CREATE DATABASE {TEMPLATE}")
        migrated = subprocess.run([binary, "migrate", "--database-url", self.url(TEMPLATE)], capture_output=True, text=True, timeout=120)
        assert migrated.returncode == 0, migrated.stdout + migrated.stderr

    def tool(self, name):
        return os.path.join(self.binaries, name)

    def run(self, name, *args):
        done = subprocess.run([*self.run_as, self.tool(name), *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{name} failed:\n{done.stdout}{done.stderr}"

    def sql(self, statement):
        done = subprocess.run([self.tool("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(self.port), "-U", USER,
                               "-d", "postgres", "-c", statement], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{statement}: {done.stderr}"

    def url(self, database):
        return f"postgres://{USER}:{PASSWORD}@127.0.0.1:{self.port}/{database}"

    def create(self):
        """A fresh migrated database (a copy of the template); returns its URL."""
        name = next(self.names)
        self.sql(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        return self.url(name)

    def drop(self, url):
        """Drops a database made by `create`, ending the sessions a killed server left in it."""
        self.sql(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")

    def stop(self):
        if self.stopped:
            return
        self.stopped = True
        if os.path.exists(os.path.join(self.cluster, "postmaster.pid")):
            subprocess.run([*self.run_as, self.tool("pg_ctl"), "-D", self.cluster, "-m", "immediate", "-w", "-t", "30", "stop"],
                           capture_output=True, timeout=60)
        shutil.rmtree(self.root, ignore_errors=True)


