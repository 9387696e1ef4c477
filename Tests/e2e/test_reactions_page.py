"""API 1.1 on the web page, in headless Chromium at phone size (390×844, touch) against the real
server: liking a note (the device key kept in localStorage), a note's thread with replies (the
author's badge, paging, a second window following live), deleting your own note, a lifetime
chosen when posting, the board as it stood on a past day (`asOf`, kept in the URL), the popular
order, error states (404, 429), and replies beside their notes on the moderation page."""
import datetime
import json
import math
import os
import re
import secrets
import subprocess
import time

import pytest
import requests
from selenium.webdriver.common.by import By

from accessibility import axe_violations
from conftest import BINARY, Server, new_data_dir, shared_postgres, stop_and_clean
from test_browser import browser_factory, iso, screenshot, wait_for  # noqa: F401 (fixture)

WEB = os.path.join(os.path.dirname(__file__), "../../web")  # the page as edited, not the build's copy
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}
BASE = (45.7640, 4.8357)
OLD_MESSAGE = "Flea market on the square, three days ago"
PASSWORD = "alice-password-123"


def spot(number):
    """A place of its own for each test (11 km apart), so the module's tests share one server."""
    return (round(BASE[0] + number * 0.1, 6), BASE[1])


def key():
    """A fresh device key, as a page would make one."""
    return secrets.token_urlsafe(24)


@pytest.fixture(scope="module")
def board():
    """One server for the module: a moderator, one note imported as made three days ago (at spot 5),
    unlimited posting and liking; the page served from web/ as edited."""
    data_dir = new_data_dir()
    database_url = shared_postgres().create()
    server = None
    try:
        three_days_ago = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=3)
        path = os.path.join(data_dir, "seed.ndjson")
        with open(path, "w") as handle:
            lat, lon = spot(5)
            handle.write(json.dumps({"lat": lat, "lon": lon, "message": OLD_MESSAGE, "tag": "lifestyle", "createdAt": iso(three_days_ago)}) + "\n")
        imported = subprocess.run([BINARY, "import", path, "--database-url", database_url], capture_output=True, text=True, timeout=120)
        assert imported.returncode == 0, imported.stderr
        added = subprocess.run([BINARY, "moderator", "add", "alice", "--database-url", database_url], input=PASSWORD + "\n",
                               capture_output=True, text=True, timeout=120)
        assert added.returncode == 0, added.stderr
        server = Server(data_dir, "--post-rate-per-minute", "0", "--like-rate-per-minute", "0",
                        "--tile-url", "/no-tiles/{z}/{x}/{y}.png", "--web-dir", WEB, database_url=database_url)
        yield server
    finally:
        stop_and_clean(server, data_dir, database_url)


def phone(browser_factory):
    driver = browser_factory(PHONE["width"], PHONE["height"])
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    return driver


def call(server, method, path, device=None, **kwargs):
    headers = kwargs.pop("headers", {})
    if device:
        headers["X-Device-Key"] = device
    return requests.request(method, server.url + path, headers=headers, timeout=30, **kwargs)


def make_note(server, where, message, device=None, tag="food", **extra):
    response = call(server, "POST", "/api/v1/posts", device, json={"lat": where[0], "lon": where[1], "message": message, "tag": tag, **extra})
    assert response.status_code == 201, response.text
    return response.json()


def list_url(server, where, **params):
    query = "&".join(f"{name}={value}" for name, value in {"view": "list", "lat": where[0], "lon": where[1], "radius": 200, **params}.items())
    return f"{server.url}/?{query}"


def list_messages(driver):
    return driver.execute_script("return [...document.querySelectorAll('#posts li[data-id] .message')].map(e => e.textContent)")


def list_ids(driver):
    return driver.execute_script("return [...document.querySelectorAll('#posts li[data-id]')].map(e => Number(e.dataset.id))")


def control(driver, post_id, selector):
    return driver.find_element(By.CSS_SELECTOR, f'#posts li[data-id="{post_id}"] {selector}')


def like_state(driver, post_id):
    """(aria-pressed, the count shown) of a note's like button in the list."""
    return driver.execute_script("""
        const button = document.querySelector(`#posts li[data-id="${arguments[0]}"] .like`);
        return button ? [button.getAttribute('aria-pressed'), button.querySelector('.count').textContent] : null;""", post_id)


def tap(driver, element):
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def size(element):
    box = element.rect
    return box["width"], box["height"]


def show_list(driver):
    """Scrolled to the order and day controls, with the notes below them (for a screenshot)."""
    driver.execute_script("document.querySelector('#order').scrollIntoView()")


def no_sideways_scroll(driver):
    widths = driver.execute_script("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], f"the page scrolls sideways: {widths}"


def status(driver):
    return driver.find_element(By.ID, "status").text


def device_key_of(driver):
    return driver.execute_script("return localStorage.getItem('noticeboard-device-key')")


def thread_replies(driver):
    return driver.execute_script("""return [...document.querySelectorAll('#replies .reply')].map((item) => ({
        id: Number(item.dataset.id), message: item.querySelector('.message').textContent,
        author: Boolean(item.querySelector('.badge.author')), you: Boolean(item.querySelector('.badge.you'))}))""")


def serious(driver):
    return axe_violations(driver, impacts={"serious", "critical"})


def test_like_toggles_at_once_and_the_device_key_persists(board, browser_factory):
    where = spot(1)
    note = make_note(board, where, "Best falafel in town at the corner stall")
    driver = phone(browser_factory)
    driver.get(list_url(board, where))
    wait_for(driver, lambda d: list_messages(d) == [note["message"]], message="the note listed")
    assert like_state(driver, note["id"]) == ["false", "0"]
    like = control(driver, note["id"], ".like")
    replies = control(driver, note["id"], ".replies")
    for element in (like, replies):
        width, height = size(element)
        assert width >= 44 and height >= 44, (element.get_attribute("class"), width, height)
    assert replies.text == "Reply" and replies.get_attribute("aria-haspopup") == "dialog"
    # Not this device's note: no delete control.
    assert driver.find_elements(By.CSS_SELECTOR, f'#posts li[data-id="{note["id"]}"] .delete') == []
    no_sideways_scroll(driver)
    show_list(driver)
    screenshot(driver, "reactions-list")
    violations = serious(driver)
    assert violations == [], violations

    tap(driver, like)
    wait_for(driver, lambda d: like_state(d, note["id"]) == ["true", "1"], message="liked at once")
    wait_for(driver, lambda _: call(board, "GET", f"/api/v1/posts/{note['id']}").json()["likeCount"] == 1, message="the like stored")
    device = device_key_of(driver)
    assert re.fullmatch(r"[A-Za-z0-9_-]{16,128}", device or ""), device
    assert call(board, "GET", f"/api/v1/posts/{note['id']}", device).json()["likedByMe"] is True
    assert control(driver, note["id"], ".like").accessible_name == "Like, 1 like"
    show_list(driver)
    screenshot(driver, "reactions-liked")

    # Reloaded, the page keeps its key: still liked by this device.
    driver.refresh()
    wait_for(driver, lambda d: like_state(d, note["id"]) == ["true", "1"], message="still liked after a reload")
    assert device_key_of(driver) == device

    # Another browser (another device) sees the count, not liked by itself.
    other = phone(browser_factory)
    other.get(list_url(board, where))
    wait_for(other, lambda d: like_state(d, note["id"]) == ["false", "1"], message="the other device's view")
    assert device_key_of(other) != device

    tap(driver, control(driver, note["id"], ".like"))
    wait_for(driver, lambda d: like_state(d, note["id"]) == ["false", "0"], message="unliked at once")
    wait_for(driver, lambda _: call(board, "GET", f"/api/v1/posts/{note['id']}").json()["likeCount"] == 0, message="the unlike stored")
    assert driver.find_element(By.CSS_SELECTOR, f'#posts li[data-id="{note["id"]}"] .note-error').text == ""


def test_a_like_on_a_note_that_vanished_says_so(board, browser_factory):
    where = spot(8)
    author = key()
    keep = make_note(board, where, "Choir practice moved to room 4")
    gone = make_note(board, where, "Selling two concert tickets", device=author)
    driver = phone(browser_factory)
    # No live stream: the note's removal is not heard, so the page learns it from the like's 404.
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/v1/posts/stream*"]})
    driver.get(list_url(board, where))
    wait_for(driver, lambda d: sorted(list_messages(d)) == sorted([keep["message"], gone["message"]]))
    assert call(board, "DELETE", f"/api/v1/posts/{gone['id']}", author).status_code == 204
    tap(driver, control(driver, gone["id"], ".like"))
    error = wait_for(driver, lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, "#posts li.note.gone .note-error") if e.text], message="the error")[0]
    assert error.text == "This note is no longer on the board." and error.get_attribute("role") == "alert"
    # Its count is back to what the server last said, its controls are off, and it leaves the list.
    gone_item = driver.find_element(By.CSS_SELECTOR, "#posts li.note.gone")
    assert gone_item.find_element(By.CSS_SELECTOR, ".like .count").text == "0"
    assert all(not button.is_enabled() for button in gone_item.find_elements(By.TAG_NAME, "button"))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", gone_item)
    screenshot(driver, "reactions-like-404")
    wait_for(driver, lambda d: list_messages(d) == [keep["message"]] and not d.find_elements(By.CSS_SELECTOR, "#posts li.gone"),
             timeout=15, message="the vanished note leaves the list")


def test_too_many_likes_is_said_and_the_count_goes_back(data_dir, database_url, browser_factory):
    server = Server(data_dir, "--like-rate-per-minute", "1", "--tile-url", "/no-tiles/{z}/{x}/{y}.png", "--web-dir", WEB,
                    database_url=database_url)
    try:
        where = spot(9)
        note = make_note(server, where, "Bike repair workshop, free, Saturday")
        driver = phone(browser_factory)
        driver.get(list_url(server, where))
        wait_for(driver, lambda d: like_state(d, note["id"]) == ["false", "0"])
        tap(driver, control(driver, note["id"], ".like"))
        wait_for(driver, lambda _: call(server, "GET", f"/api/v1/posts/{note['id']}").json()["likeCount"] == 1)
        # The second like request of the minute is refused (429): the page says so and shows the truth.
        tap(driver, control(driver, note["id"], ".like"))
        error = wait_for(driver, lambda d: control(d, note["id"], ".note-error").text, message="the 429 message")
        assert re.fullmatch(r"Too many likes just now: try again in \d+ s\.", error), error
        assert like_state(driver, note["id"]) == ["true", "1"]
        assert call(server, "GET", f"/api/v1/posts/{note['id']}").json()["likeCount"] == 1
    finally:
        server.stop()


def test_a_thread_with_replies_the_authors_badge_paging_and_a_second_window_live(board, browser_factory):
    where = spot(2)
    author = phone(browser_factory)
    author.get(f"{board.url}/?view=post&lat={where[0]}&lon={where[1]}&radius=200")
    author.find_element(By.ID, "message").send_keys("Who left a blue umbrella in the library?")
    author.find_element(By.ID, "post-button").click()
    wait_for(author, lambda d: "Posted your food note" in status(d))
    [note] = call(board, "GET", "/api/v1/posts/nearby", params={"lat": where[0], "lon": where[1], "radius": 200}).json()["posts"]
    author.find_element(By.ID, "tab-list").click()
    wait_for(author, lambda d: list_messages(d) == [note["message"]])
    assert control(author, note["id"], ".delete").is_displayed()  # the author's own note

    # A second device opens the thread: nothing yet.
    reader = phone(browser_factory)
    reader.get(list_url(board, where))
    wait_for(reader, lambda d: list_messages(d) == [note["message"]])
    assert reader.find_elements(By.CSS_SELECTOR, f'#posts li[data-id="{note["id"]}"] .delete') == []
    tap(reader, control(reader, note["id"], ".replies"))
    wait_for(reader, lambda d: d.find_element(By.ID, "replies-empty").is_displayed(), message="an empty thread")
    assert reader.find_element(By.ID, "replies-empty").text == "No replies yet."
    assert reader.find_element(By.ID, "thread").get_attribute("open") is not None
    assert reader.switch_to.active_element.get_attribute("id") != "replies-empty"
    violations = serious(reader)
    assert violations == [], violations

    # The author replies in their own thread: the reply carries the author's badge.
    tap(author, control(author, note["id"], ".replies"))
    wait_for(author, lambda d: d.find_element(By.ID, "replies-empty").is_displayed())
    box = author.find_element(By.ID, "reply-message")
    send = author.find_element(By.ID, "reply-send")
    for element in (box, send):
        width, height = size(element)
        assert width >= 44 and height >= 44, (element.get_attribute("id"), width, height)
    send.click()
    wait_for(author, lambda d: d.find_element(By.ID, "reply-error").text == "Write something first.")
    assert box.get_attribute("aria-invalid") == "true"
    box.send_keys("It is at the front desk now")
    send.click()
    wait_for(author, lambda d: [r["message"] for r in thread_replies(d)] == ["It is at the front desk now"], message="the reply listed")
    [reply] = thread_replies(author)
    assert reply["author"] and reply["you"]
    assert not author.find_element(By.ID, "replies-empty").is_displayed()
    assert author.find_element(By.ID, "reply-message").get_attribute("value") == ""
    no_sideways_scroll(author)
    screenshot(author, "reactions-thread")

    # The reader's open thread receives it live, badge and all; closed, the count reads 1 reply.
    wait_for(reader, lambda d: [r["message"] for r in thread_replies(d)] == ["It is at the front desk now"], message="the live reply")
    assert thread_replies(reader)[0]["author"] and not thread_replies(reader)[0]["you"]
    reader.find_element(By.ID, "reply-message").send_keys("Thanks, it is mine!")
    reader.find_element(By.ID, "reply-send").click()
    wait_for(reader, lambda d: len(thread_replies(d)) == 2)
    assert thread_replies(reader)[1] == {"id": thread_replies(reader)[1]["id"], "message": "Thanks, it is mine!", "author": False, "you": True}
    wait_for(author, lambda d: [r["message"] for r in thread_replies(d)] == ["It is at the front desk now", "Thanks, it is mine!"])
    reader.find_element(By.ID, "thread-close").click()
    wait_for(reader, lambda d: d.find_element(By.ID, "thread").get_attribute("open") is None)
    assert reader.switch_to.active_element == control(reader, note["id"], ".replies")  # the focus goes back
    assert control(reader, note["id"], ".replies").text == "2 replies"
    author.find_element(By.ID, "thread-close").click()
    wait_for(author, lambda d: control(d, note["id"], ".replies").text == "2 replies")
    public = call(board, "GET", f"/api/v1/posts/{note['id']}/replies").json()["replies"]
    assert [(r["message"], r["byAuthor"]) for r in public] == [("It is at the front desk now", True), ("Thanks, it is mine!", False)]

    # A long thread comes a page at a time.
    markup = '<img id="injected" src="x" onerror="document.title=1">'
    for number in range(23):
        message = markup if number == 5 else f"Me too #{number}"
        assert call(board, "POST", f"/api/v1/posts/{note['id']}/replies", key(), json={"message": message}).status_code == 201
    wait_for(reader, lambda d: control(d, note["id"], ".replies").text == "25 replies", message="the live count")
    reader.refresh()
    wait_for(reader, lambda d: list_messages(d) == [note["message"]])
    tap(reader, control(reader, note["id"], ".replies"))
    more = wait_for(reader, lambda d: d.find_element(By.ID, "replies-more").is_displayed() and d.find_element(By.ID, "replies-more"),
                    message="More replies")
    assert len(thread_replies(reader)) == 20 and more.text == "More replies"
    tap(reader, more)
    wait_for(reader, lambda d: len(thread_replies(d)) == 25 and not d.find_element(By.ID, "replies-more").is_displayed())
    assert [r["message"] for r in thread_replies(reader)][:2] == ["It is at the front desk now", "Thanks, it is mine!"]
    assert thread_replies(reader)[-1]["message"] == "Me too #22"
    assert markup in [r["message"] for r in thread_replies(reader)] and reader.find_elements(By.ID, "injected") == []  # text, never markup
    violations = serious(reader)
    assert violations == [], violations


def test_delete_your_own_note(board, browser_factory):
    where = spot(3)
    other = make_note(board, where, "Yoga in the park, 7 am", device=key())
    mine_driver = phone(browser_factory)
    mine_driver.get(f"{board.url}/?view=post&lat={where[0]}&lon={where[1]}&radius=200")
    mine_driver.find_element(By.ID, "message").send_keys("Typo in my note, sorry")
    mine_driver.find_element(By.ID, "post-button").click()
    wait_for(mine_driver, lambda d: "Posted your food note" in status(d))
    mine_driver.find_element(By.ID, "tab-list").click()
    wait_for(mine_driver, lambda d: sorted(list_messages(d)) == sorted([other["message"], "Typo in my note, sorry"]))
    mine_id = next(post["id"] for post in call(board, "GET", "/api/v1/posts/nearby", params={"lat": where[0], "lon": where[1]}).json()["posts"]
                   if post["message"] == "Typo in my note, sorry")
    # The delete control is on this device's note only.
    assert [int(item.get_attribute("data-id")) for item in mine_driver.find_elements(By.CSS_SELECTOR, "#posts li[data-id]")
            if item.find_elements(By.CSS_SELECTOR, ".delete")] == [mine_id]
    watcher = phone(browser_factory)
    watcher.get(list_url(board, where))
    wait_for(watcher, lambda d: len(list_messages(d)) == 2)
    assert watcher.find_elements(By.CSS_SELECTOR, "#posts .delete") == []

    delete = control(mine_driver, mine_id, ".delete")
    assert size(delete)[1] >= 44 and delete.accessible_name == "Delete your note"
    tap(mine_driver, delete)
    confirm = wait_for(mine_driver, lambda d: d.find_element(By.CSS_SELECTOR, f'#posts li[data-id="{mine_id}"] .confirm'))
    assert "Delete this note for good?" in confirm.text
    # "Keep it" keeps it.
    confirm.find_element(By.CSS_SELECTOR, "button.secondary").click()
    wait_for(mine_driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#posts .confirm"))
    assert call(board, "GET", f"/api/v1/posts/{mine_id}").status_code == 200
    tap(mine_driver, control(mine_driver, mine_id, ".delete"))
    tap(mine_driver, mine_driver.find_element(By.CSS_SELECTOR, "#posts .confirm .confirm-delete"))
    feedback = wait_for(mine_driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#posts li.deleted .feedback"), message="Deleted feedback")[0]
    assert feedback.text == "Deleted."
    assert list_messages(mine_driver) == [other["message"]]
    assert "Deleted your note" in status(mine_driver)
    assert call(board, "GET", f"/api/v1/posts/{mine_id}").status_code == 404
    wait_for(mine_driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#posts li.deleted"), timeout=15, message="the feedback goes")
    # The other window loses it live.
    wait_for(watcher, lambda d: list_messages(d) == [other["message"]], message="gone from the other window")


def test_post_with_a_lifetime_of_one_day(board, browser_factory):
    where = spot(4)
    driver = phone(browser_factory)
    driver.get(f"{board.url}/?view=post&lat={where[0]}&lon={where[1]}&radius=200")
    lifetime = driver.find_element(By.ID, "compose-lifetime")
    assert [label.text for label in lifetime.find_elements(By.TAG_NAME, "label")] == ["1 day", "1 week", "1 month", "Never"]
    assert driver.find_element(By.CSS_SELECTOR, "#compose-lifetime input[value=never]").is_selected()
    for label in lifetime.find_elements(By.TAG_NAME, "label"):
        assert size(label)[1] >= 44, label.text
    driver.find_element(By.ID, "message").send_keys("Free sofa on the pavement, take it today")
    tap(driver, lifetime.find_element(By.XPATH, ".//label[normalize-space()='1 day']"))
    assert driver.find_element(By.CSS_SELECTOR, "#compose-lifetime input[value=day]").is_selected()
    no_sideways_scroll(driver)
    driver.execute_script("document.getElementById('compose').scrollIntoView()")
    screenshot(driver, "reactions-post-lifetime")
    posted_at = time.time()
    driver.find_element(By.ID, "post-button").click()
    wait_for(driver, lambda d: "Posted your food note, until" in status(d))
    [post] = call(board, "GET", "/api/v1/posts/nearby", params={"lat": where[0], "lon": where[1]}).json()["posts"]
    expires = datetime.datetime.fromisoformat(post["expiresAt"].replace("Z", "+00:00")).timestamp()
    assert abs(expires - (posted_at + 86400)) < 120, post["expiresAt"]
    # The list says until when it stays.
    driver.find_element(By.ID, "tab-list").click()
    wait_for(driver, lambda d: list_messages(d) == [post["message"]])
    # Read in one script: the list may be drawn again (the post's own live event) between two calls.
    until = lambda d: d.execute_script("return document.querySelector(arguments[0])?.getAttribute('datetime') ?? null",
                                       f'#posts li[data-id="{post["id"]}"] .until time')
    wait_for(driver, lambda d: until(d) == post["expiresAt"], message="until when it stays")


def set_day(driver, day):
    driver.execute_script("const input = document.getElementById('as-of'); input.value = arguments[0];"
                          "input.dispatchEvent(new Event('change', {bubbles: true}))", day)


def test_the_board_on_a_past_day(board, browser_factory):
    where = spot(5)
    new = make_note(board, where, "Pop-up bakery opens today", tag="food")
    driver = phone(browser_factory)
    driver.get(list_url(board, where))
    wait_for(driver, lambda d: sorted(list_messages(d)) == sorted([OLD_MESSAGE, new["message"]]))
    assert not driver.find_element(By.ID, "past-banner").is_displayed()

    yesterday = datetime.date.today() - datetime.timedelta(days=1)
    set_day(driver, yesterday.isoformat())
    wait_for(driver, lambda d: list_messages(d) == [OLD_MESSAGE], message="only the note that stood yesterday")
    assert "asOf=" in driver.current_url
    banner = driver.find_element(By.ID, "past-banner")
    assert banner.is_displayed() and "The past: the board as it stood at the end of" in banner.text and "Back to now" in banner.text
    # The past is read-only: likes are counts, not buttons; no delete; the post form says where a note goes.
    old_id = list_ids(driver)[0]
    assert driver.find_elements(By.CSS_SELECTOR, "#posts .like") == []
    assert driver.find_element(By.CSS_SELECTOR, f'#posts li[data-id="{old_id}"] .like-count').text.startswith("0")
    # Nobody replies from the past, and times are dates: "3 days ago" would count from today.
    assert control(driver, old_id, ".replies").text == "No replies"
    made = datetime.datetime.fromisoformat(call(board, "GET", f"/api/v1/posts/{old_id}").json()["createdAt"].replace("Z", "+00:00")).astimezone()
    shown = driver.find_element(By.CSS_SELECTOR, f'#posts li[data-id="{old_id}"] time.ago').text
    assert "ago" not in shown and str(made.day) in shown and made.strftime("%b") in shown, shown  # the browser's zone is this machine's
    no_sideways_scroll(driver)
    show_list(driver)
    screenshot(driver, "reactions-past-banner")
    violations = serious(driver)
    assert violations == [], violations

    # A shared or reloaded link keeps the day.
    as_of = re.search(r"asOf=([^&]+)", driver.current_url).group(1)
    driver.refresh()
    wait_for(driver, lambda d: list_messages(d) == [OLD_MESSAGE], message="the past after a reload")
    assert f"asOf={as_of}" in driver.current_url and driver.find_element(By.ID, "past-banner").is_displayed()
    assert driver.find_element(By.ID, "as-of").get_attribute("value") == yesterday.isoformat()

    # A note posted now does not land in the past.
    make_note(board, where, "Posted while you looked back")
    time.sleep(1.5)  # a live update would have drawn it by now
    assert list_messages(driver) == [OLD_MESSAGE]

    # Its thread is read-only there.
    tap(driver, control(driver, old_id, ".replies"))
    wait_for(driver, lambda d: d.find_element(By.ID, "thread-past").is_displayed())
    assert not driver.find_element(By.ID, "reply-form").is_displayed()
    driver.find_element(By.ID, "thread-close").click()

    driver.find_element(By.ID, "tab-post").click()
    assert "goes on the board of now" in driver.find_element(By.ID, "compose-past").text
    assert driver.find_element(By.ID, "past-banner").is_displayed()
    # Looking around takes the screen under the banner, never under it: its controls stay tappable.
    driver.find_element(By.ID, "tab-look").click()
    top = lambda d, selector: d.execute_script(f"const r = document.querySelector('{selector}').getBoundingClientRect(); return [r.top, r.bottom]")
    wait_for(driver, lambda d: top(d, "#view-look")[0] >= top(d, "#past-banner")[1] - 0.5, message="look around below the past's banner")
    pause = driver.find_element(By.ID, "look-pause")
    hit = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)", pause)
    assert hit == pause or pause.get_attribute("id") in (hit.get_attribute("id"), hit.find_element(By.XPATH, "..").get_attribute("id"))
    screenshot(driver, "reactions-past-look")
    driver.find_element(By.ID, "tab-list").click()

    # Four days back: the old note was not there yet either.
    set_day(driver, (datetime.date.today() - datetime.timedelta(days=4)).isoformat())
    wait_for(driver, lambda d: list_messages(d) == [] and "back then" in status(d), message="an empty past")

    driver.find_element(By.ID, "back-to-now").click()
    wait_for(driver, lambda d: len(list_messages(d)) == 3, message="the board now")
    assert "asOf" not in driver.current_url and not driver.find_element(By.ID, "past-banner").is_displayed()
    assert driver.find_elements(By.CSS_SELECTOR, "#posts .like")
    assert control(driver, old_id, ".replies").text == "Reply"
    # The note stands where the reader does: "here", not "0 m, north".
    title = driver.find_element(By.CSS_SELECTOR, f'#posts li[data-id="{old_id}"] .note-title').text
    assert title.endswith("· here") and "0 m" not in title, title
    assert "ago" in driver.find_element(By.CSS_SELECTOR, f'#posts li[data-id="{old_id}"] time.ago').text


def test_popular_order_follows_the_api(board, browser_factory):
    where = spot(6)
    notes = [make_note(board, (where[0] + i * 0.0002, where[1]), f"Popular candidate {i}") for i in range(4)]
    likes = {notes[0]["id"]: 1, notes[1]["id"]: 0, notes[2]["id"]: 4, notes[3]["id"]: 2}
    for post_id, count in likes.items():
        for _ in range(count):
            assert call(board, "PUT", f"/api/v1/posts/{post_id}/like", key()).status_code == 200
    expected = [post["id"] for post in call(board, "GET", "/api/v1/posts/nearby",
                                            params={"lat": where[0], "lon": where[1], "radius": 200, "order": "popular"}).json()["posts"]]
    assert expected[0] == notes[2]["id"]
    driver = phone(browser_factory)
    driver.get(list_url(board, where))
    wait_for(driver, lambda d: list_ids(d) == [note["id"] for note in notes], message="nearest first")
    driver.find_element(By.CSS_SELECTOR, '#order [data-order="popular"]').click()
    wait_for(driver, lambda d: list_ids(d) == expected, message="the API's popular order")
    assert "order=popular" in driver.current_url
    assert [like_state(driver, post_id)[1] for post_id in expected] == [str(likes[post_id]) for post_id in expected]
    driver.refresh()
    wait_for(driver, lambda d: list_ids(d) == expected, message="popular after a reload")
    assert driver.find_element(By.CSS_SELECTOR, '#order [data-order="popular"]').get_attribute("aria-pressed") == "true"

    # Look around (facing north, where the notes are): the most liked ones stand out.
    driver.find_element(By.ID, "tab-look").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#look-notes .note.top"), message="top notes in the look-around view")
    top = driver.execute_script("return [...document.querySelectorAll('#look-notes .note.top .message')].map(e => e.textContent)")
    assert notes[2]["message"] in top and notes[1]["message"] not in top
    assert "4 likes" in driver.find_element(By.XPATH, f"//ul[@id='look-notes']/li[.//span[text()='{notes[2]['message']}']]").text


def log_in(driver, server):
    driver.get(server.url + "/moderate")
    driver.find_element(By.ID, "username").send_keys("alice")
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "#login button[type=submit]").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "tab-notes").is_displayed(), message="logged in")


def test_moderators_see_replies_beside_their_note_and_hide_restore_delete_them(board, browser_factory):
    where = spot(7)
    author = key()
    note = make_note(board, where, "Lost keys near the fountain", device=author)
    kind = call(board, "POST", f"/api/v1/posts/{note['id']}/replies", author, json={"message": "Found them, thanks all"}).json()
    rude = call(board, "POST", f"/api/v1/posts/{note['id']}/replies", key(), json={"message": "<b>Nobody cares</b>"}).json()
    assert kind["byAuthor"] and not rude["byAuthor"]

    visitor = phone(browser_factory)
    visitor.get(list_url(board, where))
    wait_for(visitor, lambda d: control(d, note["id"], ".replies").text == "2 replies")
    # The visitor reads the thread while the moderator works.
    tap(visitor, control(visitor, note["id"], ".replies"))
    wait_for(visitor, lambda d: [r["id"] for r in thread_replies(d)] == [kind["id"], rude["id"]], message="the thread, both replies")

    moderator = phone(browser_factory)
    log_in(moderator, board)
    moderator.find_element(By.ID, "tab-notes").click()
    row = wait_for(moderator, lambda d: d.find_elements(By.CSS_SELECTOR, f'#notes-table tr[data-id="{note["id"]}"]'), message="the note")[0]
    toggle = row.find_element(By.CSS_SELECTOR, "button.replies-toggle")
    assert toggle.text == "Replies (2)" and toggle.get_attribute("aria-expanded") == "false"
    tap(moderator, toggle)
    wait_for(moderator, lambda d: len(d.find_elements(By.CSS_SELECTOR, f"#replies-of-{note['id']} tr[data-reply-id]")) == 2,
             message="the replies beneath their note")
    assert toggle.get_attribute("aria-expanded") == "true"
    beneath = moderator.find_element(By.ID, f"replies-of-{note['id']}")
    assert beneath.find_elements(By.TAG_NAME, "b") == []  # text, never markup
    rude_row = beneath.find_element(By.CSS_SELECTOR, f'tr[data-reply-id="{rude["id"]}"]')
    assert rude_row.find_element(By.CSS_SELECTOR, "td.message").text == rude["message"]
    assert beneath.find_element(By.CSS_SELECTOR, f'tr[data-reply-id="{kind["id"]}"] .badge.author').text == "author"
    no_sideways_scroll(moderator)
    violations = serious(moderator)
    assert violations == [], violations
    moderator.execute_script("arguments[0].scrollIntoView()", row)
    screenshot(moderator, "reactions-moderation-replies")

    # Hide: a reason first. Its field is at the top of the list, out of sight on a phone: the
    # reason is asked for over the list, with the reply quoted.
    tap(moderator, rude_row.find_element(By.CSS_SELECTOR, f'button[aria-label="Hide reply {rude["id"]}"]'))
    dialog = wait_for(moderator, lambda d: d.find_element(By.ID, "reason-dialog") if d.find_element(By.ID, "reason-dialog").is_displayed() else None,
                      message="the reason asked for")
    assert dialog.find_element(By.ID, "reason-heading").text == f"Hide reply {rude['id']}?"
    assert dialog.find_element(By.ID, "reason-preview").text == rude["message"]
    assert moderator.switch_to.active_element.get_attribute("id") == "reason-input"
    box = moderator.execute_script("const r = arguments[0].getBoundingClientRect(); return {y: r.y, bottom: r.bottom, width: r.width};", dialog)
    assert box["y"] >= 0 and box["bottom"] <= 844 and 300 <= box["width"] <= 390, box  # on the phone's screen, using it
    screenshot(moderator, "reactions-moderation-hide-reason")
    tap(moderator, moderator.find_element(By.ID, "reason-confirm"))
    wait_for(moderator, lambda d: d.find_element(By.ID, "reason-error").text == "A reason is required.")
    moderator.find_element(By.ID, "reason-input").send_keys("rude")
    tap(moderator, moderator.find_element(By.ID, "reason-confirm"))
    wait_for(moderator, lambda d: f"Hid reply {rude['id']}" in status(d))
    assert not moderator.find_element(By.ID, "reason-dialog").is_displayed()
    token = call(board, "POST", "/api/v1/auth/token", json={"username": "alice", "password": PASSWORD}).json()["token"]
    entry = call(board, "GET", "/api/v1/moderation/audit", headers={"Authorization": f"Bearer {token}"}).json()["entries"][0]
    assert (entry["action"], entry["replyId"], entry["reason"]) == ("hide", rude["id"], "rude")
    wait_for(moderator, lambda d: d.find_element(By.CSS_SELECTOR, f'tr[data-reply-id="{rude["id"]}"] td.status').text == "hidden")
    assert [r["id"] for r in call(board, "GET", f"/api/v1/posts/{note['id']}/replies").json()["replies"]] == [kind["id"]]
    # The visitor's open thread loses it at once, without a reload, and the note counts one reply.
    wait_for(visitor, lambda d: [r["message"] for r in thread_replies(d)] == [kind["message"]], message="the hidden reply leaves the open thread")
    visitor.find_element(By.ID, "thread-close").click()
    wait_for(visitor, lambda d: control(d, note["id"], ".replies").text == "1 reply", message="the count after the hide")
    visitor.refresh()
    wait_for(visitor, lambda d: control(d, note["id"], ".replies").text == "1 reply")
    tap(visitor, control(visitor, note["id"], ".replies"))
    wait_for(visitor, lambda d: [r["message"] for r in thread_replies(d)] == [kind["message"]], message="the hidden reply gone")
    visitor.find_element(By.ID, "thread-close").click()

    # Restore, then delete for good (confirmed, with a reason).
    tap(moderator, moderator.find_element(By.CSS_SELECTOR, f'button[aria-label="Restore reply {rude["id"]}"]'))
    wait_for(moderator, lambda d: f"Restored reply {rude['id']}" in status(d))
    assert len(call(board, "GET", f"/api/v1/posts/{note['id']}/replies").json()["replies"]) == 2
    wait_for(visitor, lambda d: control(d, note["id"], ".replies").text == "2 replies", message="the count after the restore, live")
    tap(moderator, moderator.find_element(By.CSS_SELECTOR, f'button[aria-label="Delete reply {rude["id"]}"]'))
    wait_for(moderator, lambda d: d.find_element(By.ID, "delete-dialog").is_displayed())
    assert moderator.find_element(By.ID, "delete-heading").text == f"Delete reply {rude['id']}?"
    moderator.find_element(By.ID, "delete-reason").send_keys("abuse")
    moderator.find_element(By.ID, "delete-confirm").click()
    wait_for(moderator, lambda d: f"Deleted reply {rude['id']}" in status(d))
    wait_for(moderator, lambda d: d.find_element(By.CSS_SELECTOR, f'tr[data-reply-id="{rude["id"]}"] td.status').text == "deleted")
    wait_for(visitor, lambda d: control(d, note["id"], ".replies").text == "1 reply", message="the count after the delete, live")

    # Every reply, each beside its note: the Replies side of the view.
    moderator.find_element(By.ID, "mode-replies").click()
    wait_for(moderator, lambda d: d.find_elements(By.CSS_SELECTOR, f'#replies-table tr[data-reply-id="{kind["id"]}"]'))
    beside = moderator.find_element(By.CSS_SELECTOR, f'#replies-table tr[data-reply-id="{kind["id"]}"] td.on-note')
    wait_for(moderator, lambda d: note["message"] in beside.text, message="the note's text beside the reply")
    assert f"Note {note['id']}" in beside.text
    violations = serious(moderator)
    assert violations == [], violations

    # The audit log names the reply and its note.
    moderator.find_element(By.ID, "tab-audit").click()
    wait_for(moderator, lambda d: d.find_elements(By.CSS_SELECTOR, f'#audit-table button[aria-label="Show reply {rude["id"]}"]'))
    actions = moderator.execute_script("""return [...document.querySelectorAll('#audit-table tbody tr')].map(r => {
        const cell = r.querySelector('td.action'); return [cell.dataset.action, cell.textContent]; })""")
    assert actions[:3] == [["delete", "Deleted"], ["restore", "Restored"], ["hide", "Hidden"]], "each action said in words"
    moderator.find_element(By.CSS_SELECTOR, f'#audit-table button[aria-label="Show reply {rude["id"]}"]').click()
    wait_for(moderator, lambda d: d.find_element(By.ID, "replies-panel").is_displayed()
             and d.find_elements(By.CSS_SELECTOR, f'#replies-table tr.focused[data-reply-id="{rude["id"]}"]'), message="the reply from the audit log")
    assert moderator.find_element(By.ID, "r-post").get_attribute("value") == str(note["id"])
