"""My notes (issue 38), on a phone in the three languages: the notes and replies made with this
device's key (GET /api/v1/me/posts and /me/replies, API.md "Additions, version 1.2"), with their
likes and replies, a note hidden by moderators and one whose lifetime ended marked as such; the
opt-in for reply pushes sends {"subscription", "replies": true}, and a reply by another device is
pushed to our test push service, which decrypts it. Until the server has the version 1.2 routes
(404 for /api/v1/me/posts) these tests are skipped, and say so."""
import datetime
import json
import time

import pytest
import requests
from selenium.webdriver.common.by import By

from outbox_receivers import Receiver
from pages import js, screenshot, serious, set_language, small_targets, start_board, status, stop_board, wait_for
from test_push import Browser, verify_vapid
from test_push_page import stub_push

HERE = (-33.8688, 151.2093)
PASSWORD = "mine-password-123"
MOD = ("kim", PASSWORD)


@pytest.fixture(scope="module")
def service():
    receiver = Receiver()
    receiver.status_for = lambda path: 201
    yield receiver
    receiver.close()


@pytest.fixture(scope="module")
def board():
    server, data_dir = start_board(moderator=MOD, extra=("--webhook-allow-host", "127.0.0.1"))
    try:
        if requests.get(server.url + "/api/v1/me/posts", headers={"X-Device-Key": "k" * 32}, timeout=30).status_code == 404:
            pytest.skip("the server has no GET /api/v1/me/posts yet (API.md, Additions 1.2): My notes cannot be tested")
        yield server
    finally:
        stop_board(server, data_dir)


def token(board):
    return requests.post(board.url + "/api/v1/auth/token", json={"username": MOD[0], "password": MOD[1]}, timeout=30).json()["token"]


def seed_mine(board, device):
    """Three notes of this device (one liked twice and answered, one hidden, one taken down), a reply of its own."""
    mine = {"X-Device-Key": device}
    other = {"X-Device-Key": "someone-else-0123456789"}
    liked = requests.post(board.url + "/api/v1/posts", json={"lat": HERE[0], "lon": HERE[1], "message": "Harbour view bench", "tag": "lifestyle"},
                          headers=mine, timeout=30).json()
    for key in ("liker-one-0123456789", "liker-two-0123456789"):
        assert requests.put(f"{board.url}/api/v1/posts/{liked['id']}/like", headers={"X-Device-Key": key}, timeout=30).status_code == 200
    assert requests.post(f"{board.url}/api/v1/posts/{liked['id']}/replies", json={"message": "Lovely spot"}, headers=other,
                         timeout=30).status_code == 201
    hidden = requests.post(board.url + "/api/v1/posts", json={"lat": HERE[0], "lon": HERE[1], "message": "Selling tickets", "tag": "entertainment"},
                           headers=mine, timeout=30).json()
    answer = requests.post(f"{board.url}/api/v1/moderation/posts/{hidden['id']}/hide", json={"reason": "spam"},
                           headers={"Authorization": f"Bearer {token(board)}"}, timeout=30)
    assert answer.status_code == 200, answer.text
    soon = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=62)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    short = requests.post(board.url + "/api/v1/posts", json={"lat": HERE[0], "lon": HERE[1], "message": "Gone in a minute", "tag": "food",
                                                              "expiresAt": soon}, headers=mine, timeout=30).json()
    theirs = requests.post(board.url + "/api/v1/posts", json={"lat": HERE[0], "lon": HERE[1], "message": "Someone else's", "tag": "food"},
                           headers=other, timeout=30).json()
    reply = requests.post(f"{board.url}/api/v1/posts/{theirs['id']}/replies", json={"message": "My answer to them"}, headers=mine,
                          timeout=30).json()
    return liked, hidden, short, theirs, reply


def test_my_notes_lists_this_devices_notes_and_replies(board, browsers):
    driver = browsers.start("phone", where=HERE)
    driver.get(f"{board.url}/?view=map")
    device = wait_for(driver, lambda d: js(d, "return localStorage.getItem('noticeboard-device-key')"), message="a device key")
    # Nothing of this view is fetched while it is closed.
    assert not js(driver, "return performance.getEntriesByType('resource').some((e) => e.name.includes('/api/v1/me/'))")
    # An empty list first: says what the view is for, and offers to post.
    driver.find_element(By.ID, "tab-mine").click()
    empty = wait_for(driver, lambda d: d.find_element(By.ID, "mine-empty") if d.find_element(By.ID, "mine-empty").is_displayed() else None,
                     message="the empty view")
    assert "not posted from this phone yet" in empty.text
    assert serious(driver) == [] and small_targets(driver) == []
    screenshot(driver, "mine-phone-empty-en")
    liked, hidden, short, theirs, reply = seed_mine(board, device)
    time.sleep(63)  # the short note's lifetime ends (the shortest the server takes is over 60 s)
    for language in ("en", "zh-Hant", "zh-Hans"):
        if language != "en":
            set_language(driver, language)
        driver.find_element(By.ID, "tab-map").click()
        driver.find_element(By.ID, "tab-mine").click()
        # Read in one go: the list is drawn again as the language and the view change.
        snapshot = lambda d: js(d, """return [...document.querySelectorAll('#mine-posts li[data-id]')].map((li) => ({
            id: Number(li.dataset.id), status: li.dataset.status, text: li.textContent,
            hidden: Boolean(li.querySelector('.badge.hidden-note')), expired: Boolean(li.querySelector('.badge.expired')),
            like: li.querySelector('.like')?.textContent ?? null, replies: li.querySelector('.replies')?.textContent ?? null,
            delete: Boolean(li.querySelector('.delete'))}))""")
        items = wait_for(driver, lambda d: len(snapshot(d)) == 3 and snapshot(d), message="my three notes")
        ids = [item["id"] for item in items]
        assert ids == [short["id"], hidden["id"], liked["id"]], ids  # newest first
        assert theirs["id"] not in ids
        by_id = {item["id"]: item for item in items}
        assert by_id[hidden["id"]]["status"] == "hidden" and by_id[hidden["id"]]["hidden"]
        assert by_id[short["id"]]["expired"]
        # The live note has its like count and reply count, and its own delete.
        assert "2" in by_id[liked["id"]]["like"] and "1" in by_id[liked["id"]]["replies"] and by_id[liked["id"]]["delete"]
        replies = js(driver, """return [...document.querySelectorAll('#mine-replies li[data-id]')].map((li) => ({
            id: Number(li.dataset.id), text: li.textContent, href: li.querySelector('a').getAttribute('href')}))""")
        assert [r["id"] for r in replies] == [reply["id"]]
        assert "My answer to them" in replies[0]["text"] and replies[0]["href"] == f"#/note/{theirs['id']}"
        if language == "en":
            assert "Hidden by moderators" in by_id[hidden["id"]]["text"] and "Ended" in by_id[short["id"]]["text"]
            wait_for(driver, lambda d: status(d) == "3 notes of yours.", message="the count said")
        assert serious(driver) == []
        screenshot(driver, f"mine-phone-{language}")
    # A note's replies open from the list.
    set_language(driver, "en")
    wait_for(driver, lambda d: status(d) == "3 notes of yours.", message="drawn again in English")
    js(driver, "document.querySelector(arguments[0]).click()", f'#mine-posts li[data-id="{liked["id"]}"] .replies')
    wait_for(driver, lambda d: "Lovely spot" in d.find_element(By.ID, "replies").text, message="the thread")


def test_reply_pushes_are_opt_in_and_a_reply_arrives_encrypted(board, service, browsers):
    keys = Browser(service.url + "/push/replies")
    driver = browsers.start("phone", where=HERE)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": stub_push(keys)})
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": board.url, "permissions": ["notifications", "geolocation"]})
    driver.get(f"{board.url}/?view=mine")
    device = wait_for(driver, lambda d: js(d, "return localStorage.getItem('noticeboard-device-key')"), message="a device key")
    note = requests.post(board.url + "/api/v1/posts", json={"lat": HERE[0], "lon": HERE[1], "message": "Anyone for tennis?", "tag": "entertainment"},
                         headers={"X-Device-Key": device}, timeout=30).json()
    button = driver.find_element(By.ID, "replies-notify-on")
    assert js(driver, "return window.__push.log") == []  # nothing asked before the tap
    button.click()
    state = wait_for(driver, lambda d: d.find_element(By.ID, "replies-notify-state") if d.find_element(By.ID, "replies-notify-state").is_displayed()
                     else None, timeout=15, message="reply pushes on")
    assert "replies" in state.text and not button.is_displayed()
    assert json.loads(js(driver, "return localStorage.getItem('noticeboard-push-replies')"))["id"] > 0
    assert serious(driver) == []
    screenshot(driver, "mine-phone-replies-push-on")
    # Another device answers: the board pushes the reply to our push service, encrypted for our keys.
    answer = requests.post(f"{board.url}/api/v1/posts/{note['id']}/replies", json={"message": "Yes! Six o'clock?"},
                           headers={"X-Device-Key": "a-friend-0123456789"}, timeout=30).json()
    assert service.wait_for(lambda s: any(c["path"] == "/push/replies" for c in s.snapshot()), 20), "no reply push arrived"
    call = [c for c in service.snapshot() if c["path"] == "/push/replies"][0]
    verify_vapid(call["headers"], board.get("/api/v1/push/key").json()["publicKey"], service.url)
    pushed = keys.decrypt(call["body"])
    assert pushed["reply"]["id"] == answer["id"] and pushed["reply"]["message"] == "Yes! Six o'clock?"
    assert pushed["post"] == {"id": note["id"], "message": "Anyone for tennis?"} or (
        pushed["post"]["id"] == note["id"] and pushed["post"]["message"] == "Anyone for tennis?")
    # A reply of one's own is not pushed to oneself.
    requests.post(f"{board.url}/api/v1/posts/{note['id']}/replies", json={"message": "See you"}, headers={"X-Device-Key": device}, timeout=30)
    time.sleep(2)  # a push of it would come within this
    assert len([c for c in service.snapshot() if c["path"] == "/push/replies"]) == 1
    # Stop ends it on the board and, with no area subscription left, in the browser.
    driver.find_element(By.ID, "replies-notify-stop").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "replies-notify-on").is_displayed(), timeout=10, message="stopped")
    assert js(driver, "return window.__push.log")[-1] == ["unsubscribe"]
    assert js(driver, "return localStorage.getItem('noticeboard-push-replies')") is None
