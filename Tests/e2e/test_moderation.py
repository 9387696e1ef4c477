"""Moderators from the command line, and a hide reaching live streams, on the real binary."""
import json
import subprocess

import requests

from conftest import BINARY, wait_for_streams
from test_stream import EventReader


def moderator(database_url, *args, password=None):
    return subprocess.run([BINARY, "moderator", *args, "--database-url", database_url], input=password, capture_output=True,
                          text=True, timeout=120)


def test_a_moderator_added_on_the_command_line_hides_a_post_and_streams_hear_it(server_factory, database_url):
    server = server_factory()
    added = moderator(database_url, "add", "alice", password="a long secret\n")
    assert added.returncode == 0, added.stderr
    assert "a long secret" not in added.stdout + added.stderr
    assert moderator(database_url, "list").stdout.split() == ["alice"]
    assert moderator(database_url, "add", "bob", password="short\n").returncode != 0, "passwords under 8 characters are refused"

    login = requests.post(server.url + "/api/v1/auth/token", json={"username": "alice", "password": "a long secret"}, timeout=30)
    assert login.status_code == 200
    token = login.json()["token"]
    auth = {"Authorization": f"Bearer {token}"}

    post = server.post({"lat": 5, "lon": 5, "message": "spam", "tag": "a"}).json()
    reader = EventReader(server.url + "/api/v1/posts/stream", {"lat": 5, "lon": 5, "radius": 100})
    wait_for_streams(server, 1)
    hidden = requests.post(f"{server.url}/api/v1/moderation/posts/{post['id']}/hide", json={"reason": "spam"},
                                         headers=auth, timeout=30)
    assert hidden.status_code == 200 and hidden.json()["status"] == "hidden"
    event = reader.next()
    assert event["event"] == "remove" and json.loads(event["data"]) == {"id": post["id"]}
    restored = requests.post(f"{server.url}/api/v1/moderation/posts/{post['id']}/restore", headers=auth, timeout=30)
    assert restored.status_code == 200
    back = reader.next()
    assert back["event"] == "post" and json.loads(back["data"])["id"] == post["id"]
    reader.close()

    assert moderator(database_url, "remove", "alice").returncode == 0
    after = requests.get(server.url + "/api/v1/moderation/audit", headers=auth, timeout=30)
    assert after.status_code == 401, "removing a moderator revokes its tokens at once"
