"""The short chaos run (`scripts/chaos`, 6 cycles): kill -9 of the server, its PostgreSQL and both."""
import os
import subprocess
import sys

from conftest import BINARY, HEAVY, OUTPUT

pytestmark = HEAVY

ROOT = os.path.join(os.path.dirname(__file__), "../..")


def test_kills_under_writes_and_moderation_races_lose_nothing():
    result = subprocess.run([sys.executable, os.path.join(ROOT, "scripts/chaos"), "--cycles", "6", "--binary", BINARY],
                            capture_output=True, text=True, timeout=900)
    os.makedirs(OUTPUT, exist_ok=True)
    with open(os.path.join(OUTPUT, "chaos.log"), "w") as log:
        log.write(result.stdout + result.stderr)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert '"lost": 0' in result.stdout and '"duplicated": 0' in result.stdout
