"""Issue 37: starts killed while a PostgreSQL program runs leave no files in the temporary
directory, and what they leave in the data directory's staging area is cleaned up."""
import os
import subprocess
import tempfile
import time

from conftest import BINARY, HEAVY, Server

pytestmark = HEAVY


def test_starts_killed_midway_leave_no_scratch_files(data_dir):
    scratch = tempfile.mkdtemp(prefix="noticeboard-tmpdir-")
    env = {**os.environ, "TMPDIR": scratch}
    killed_mid_program = 0
    for delay in (0.3, 0.8, 1.5, 2.5):
        for leftover in os.listdir(data_dir):
            subprocess.run(["rm", "-rf", os.path.join(data_dir, leftover)])
        process = subprocess.Popen([BINARY, "serve", "--port", "0", "--data-dir", data_dir],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        time.sleep(delay)
        # Killed while a child program (initdb, postgres --single, pg_ctl) has its files open.
        if any(name.startswith("postgres.initializing-io-") for name in os.listdir(data_dir)):
            killed_mid_program += 1
        process.kill()
        process.wait(30)
        assert not os.listdir(scratch), f"left in the temporary directory after a kill at {delay} s: {os.listdir(scratch)}"
        time.sleep(0.5)
        server = Server(data_dir, "--post-rate-per-minute", "0", env={"TMPDIR": scratch})
        try:
            assert server.post({"lat": 1, "lon": 1, "message": "after a kill", "tag": "food"}).status_code == 201
        finally:
            assert server.stop() == 0
        left = [name for name in os.listdir(data_dir) if name.startswith("postgres.initializing")]
        assert not left, f"left in the data directory after a kill at {delay} s: {left}"
        assert not os.listdir(scratch)
    # The kills did land while programs ran (else the test proves nothing).
    assert killed_mid_program >= 2, f"only {killed_mid_program} kills landed while a program ran"
    os.rmdir(scratch)
