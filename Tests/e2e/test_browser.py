"""The web page in a real browser (Debian's headless Chromium driven by selenium) against the
real server on a real database: posting, the map, filters, look-around, live updates, XSS."""
import datetime
import json
import os
import subprocess
import time

import pytest
import requests
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import BINARY, OUTPUT, Server, wait_for_streams

HERE = (48.8566, 2.3522)
METRES_PER_DEGREE = 111_195
XSS = "<img src=x onerror=alert(1)>"
SCREENSHOTS = os.path.join(OUTPUT, "screenshots")

def iso(moment):
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def seed_board(database_url, tmp_path):
    """Notes around HERE, imported so some can be old: ahead (north), behind (south), east."""
    now = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=1)
    lat, lon = HERE
    rows = [
        (lat + 60 / METRES_PER_DEGREE, lon, "Straight ahead: the notice board", "lifestyle", now),
        (lat - 60 / METRES_PER_DEGREE, lon, "Behind you: the bakery", "food", now),
        (lat, lon + 40 / METRES_PER_DEGREE / 0.658, XSS, "entertainment", now),
        (lat + 20 / METRES_PER_DEGREE, lon - 20 / METRES_PER_DEGREE, "Vintage jacket sale", "fashion",
         datetime.datetime(2024, 3, 1, 12, tzinfo=datetime.timezone.utc)),
    ]
    path = os.path.join(tmp_path, "seed.ndjson")
    with open(path, "w") as handle:
        for lat_, lon_, message, tag, created in rows:
            handle.write(json.dumps({"lat": lat_, "lon": lon_, "message": message, "tag": tag, "createdAt": iso(created)}) + "\n")
    result = subprocess.run([BINARY, "import", path, "--database-url", database_url], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


@pytest.fixture
def board(data_dir, database_url, tmp_path):
    seed_board(database_url, tmp_path)
    server = Server(data_dir, "--post-rate-per-minute", "0", "--tile-url", "/no-tiles/{z}/{x}/{y}.png", database_url=database_url)
    yield server
    server.stop()


@pytest.fixture
def browser_factory(browsers):
    """A window of `width`×`height` placed at HERE, from the module's `browsers`."""

    def start(width=360, height=800):
        return browsers.start("window", where=HERE, size=(width, height))

    return start


def screenshot(driver, name):
    os.makedirs(SCREENSHOTS, exist_ok=True)
    driver.save_screenshot(os.path.join(SCREENSHOTS, f"{name}.png"))


def wait_for(driver, condition, timeout=10, message=""):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d), message)


def messages(driver, selector):
    # One script, not element by element: the lists are re-rendered as notes arrive.
    return driver.execute_script("return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)", selector)


def list_messages(driver):
    return messages(driver, "#posts .message")


def page_url(server, **params):
    query = "&".join(f"{key}={value}" for key, value in params.items())
    return f"{server.url}/?{query}"


def csp_violations(driver):
    return [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]


def test_list_filters_by_tag_and_time_and_keeps_them_in_the_url(board, browser_factory):
    driver = browser_factory()
    driver.get(page_url(board, view="list", lat=HERE[0], lon=HERE[1], radius=200))
    wait_for(driver, lambda d: len(list_messages(d)) == 4, message="the four seeded notes")
    assert list_messages(driver)[0] == "Vintage jacket sale"  # nearest first (28 m)
    assert any("m, north" in text for text in messages(driver, "#posts .note-title"))
    screenshot(driver, "list")

    driver.find_element(By.CSS_SELECTOR, '#tag-chips button[data-tag="fashion"]').click()
    wait_for(driver, lambda d: list_messages(d) == ["Vintage jacket sale"])
    assert "tag=fashion" in driver.current_url
    chip = driver.find_element(By.CSS_SELECTOR, '#tag-chips button[data-tag="fashion"]')
    assert chip.get_attribute("aria-pressed") == "true" and chip.find_element(By.CSS_SELECTOR, ".count").text == "1"
    chip.click()
    wait_for(driver, lambda d: len(list_messages(d)) == 4)

    driver.find_element(By.ID, "filters-toggle").click()  # on a phone the time filters fold under "Filters"
    driver.find_element(By.CSS_SELECTOR, '[data-preset="today"]').click()
    wait_for(driver, lambda d: len(list_messages(d)) == 3 and "Vintage jacket sale" not in list_messages(d))
    assert "from=" in driver.current_url
    assert driver.find_element(By.ID, "range-label").text.startswith("Since")
    screenshot(driver, "filters-today")

    # The slider's upper thumb dragged back to mid-2024: only the old note is left.
    driver.find_element(By.CSS_SELECTOR, '[data-preset="all"]').click()
    wait_for(driver, lambda d: len(list_messages(d)) == 4)
    driver.execute_script("""
        const to = document.getElementById('range-to');
        const start = new Date(); start.setHours(24, 0, 0, 0); start.setDate(start.getDate() - 3 * 365);
        to.value = Math.round((new Date(2024, 5, 1) - start) / 86400000);  // one step a day
        to.dispatchEvent(new Event('input', {bubbles: true}));""")
    wait_for(driver, lambda d: list_messages(d) == ["Vintage jacket sale"])
    assert "to=2024-0" in driver.current_url

    # The URL alone restores the view: a shared link shows the same notes.
    shared = driver.current_url
    other = browser_factory()
    other.get(shared)
    wait_for(other, lambda d: list_messages(d) == ["Vintage jacket sale"])
    assert csp_violations(driver) == []


def open_on_map(driver, post_id):
    """Opens a note's popup on the map as a person would: its own pin, or the stack holding it
    (notes too close to tap apart), tapped until the note's pin or the stack's list shows."""
    find = """const id = String(arguments[0]);
        return document.querySelector(`.note-marker[data-id="${id}"]`)
            || [...document.querySelectorAll('.leaflet-marker-icon.stack')].find((m) => m.dataset.ids.split(',').includes(id)) || null;"""
    zoom = lambda d: int(d.execute_script("return Number(new URLSearchParams(location.search).get('zoom'))"))
    for _ in range(12):
        try:
            found = wait_for(driver, lambda d: d.execute_script(find, post_id), message="the note on the map")
            zooms = "stack" in found.get_attribute("class") and "zoom in" in found.get_attribute("aria-label")
            before = zoom(driver)
            found.click()
        except StaleElementReferenceException:
            continue  # the map redrew its markers (a live event or a reload) between finding and tapping
        if not zooms:
            # Shown once it has faded in and the note's text has come (until then it reads as empty).
            shown = """return [...document.querySelectorAll('.leaflet-popup-content')].find((p) => !p.querySelector('.popup-loading')
                && getComputedStyle(p.closest('.leaflet-popup')).opacity === '1') || null;"""
            return wait_for(driver, lambda d: d.execute_script(shown), message="the popup")
        wait_for(driver, lambda d: zoom(d) > before, message="the stack zoomed in")
    raise AssertionError(f"note {post_id} never stood alone or in a list")


def test_post_through_the_form_then_see_the_marker_and_the_list_entry(board, browser_factory):
    driver = browser_factory(1280, 900)
    driver.get(page_url(board, view="map", lat=HERE[0], lon=HERE[1], zoom=17))
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".note-marker[data-id]")) >= 4,
             message="note markers on the map")
    driver.find_element(By.ID, "tab-post").click()
    message = "Lunch queue is short right now"
    driver.find_element(By.ID, "message").send_keys(message)
    assert driver.find_element(By.ID, "counter").text == f"{len(message)} / 2000"
    driver.find_element(By.CSS_SELECTOR, "#compose-tags input[value=custom]").click()
    driver.find_element(By.ID, "custom-tag").send_keys("Canteen")
    screenshot(driver, "post")
    driver.find_element(By.ID, "post-button").click()
    wait_for(driver, lambda d: "Posted your canteen note" in d.find_element(By.ID, "status").text)
    created = [post for post in board.get("/api/v1/posts?tag=canteen").json()["posts"]]
    # The form starts fresh for the next note: no message, no typed tag, the first tag chosen.
    assert driver.find_element(By.ID, "message").get_attribute("value") == ""
    assert driver.find_element(By.ID, "custom-tag").get_attribute("value") == ""
    assert driver.find_element(By.CSS_SELECTOR, "#compose-tags input[name=tag]:checked").get_attribute("value") == "food"
    assert [post["message"] for post in created] == [message]
    post_id = created[0]["id"]

    driver.find_element(By.ID, "tab-map").click()
    popup = open_on_map(driver, post_id)
    assert "canteen" in popup.text and message in popup.text
    time.sleep(0.6)  # the popup fades in
    screenshot(driver, "map")

    driver.find_element(By.ID, "tab-list").click()
    wait_for(driver, lambda d: message in list_messages(d))

    # A tag the server would refuse is said next to its field before anything is sent.
    driver.execute_script("""window.__postsSent = 0; const send = window.fetch;
        window.fetch = (input, init) => { if (init?.method === 'POST' && String(input).endsWith('/api/v1/posts')) window.__postsSent += 1; return send(input, init); };""")
    posts_sent = lambda d: d.execute_script("return window.__postsSent")
    driver.find_element(By.ID, "tab-post").click()
    sent = posts_sent(driver)
    driver.find_element(By.ID, "message").send_keys("a tag with punctuation")
    driver.find_element(By.ID, "custom-tag").clear()
    driver.find_element(By.ID, "custom-tag").send_keys("no!")
    driver.find_element(By.CSS_SELECTOR, "#compose-tags input[value=custom]").click()
    driver.find_element(By.ID, "post-button").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "tag-error").text == "A tag is 1 to 80 letters, digits, spaces, - or _ (no other punctuation).")
    assert driver.find_element(By.ID, "custom-tag").get_attribute("aria-invalid") == "true"
    assert posts_sent(driver) == sent
    # Letters of any script with their marks are a tag (the server's rule): this one goes out.
    driver.find_element(By.ID, "custom-tag").clear()
    driver.find_element(By.ID, "custom-tag").send_keys("हिन्दी_नोट")
    driver.find_element(By.ID, "post-button").click()
    wait_for(driver, lambda d: posts_sent(d) == sent + 1 and d.find_element(By.ID, "tag-error").text == "", message="the Hindi tag sent")
    # Taken down again, so the module's other tests see the board they expect.
    key = {"X-Device-Key": driver.execute_script("return localStorage.getItem('noticeboard-device-key')")}
    mine = wait_for(driver, lambda d: [p for p in requests.get(board.url + "/api/v1/me/posts", headers=key, timeout=30).json()["posts"]
                                       if p["tag"] == "हिन्दी_नोट"], message="the note made")
    assert requests.delete(f"{board.url}/api/v1/posts/{mine[0]['id']}", headers=key, timeout=30).status_code == 204
    assert csp_violations(driver) == []


def test_map_clusters_when_zoomed_out(board, browser_factory):
    driver = browser_factory(1280, 900)
    driver.get(page_url(board, view="map", lat=HERE[0], lon=HERE[1], zoom=5))
    cluster = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".cluster"), message="a cluster")[0]
    assert cluster.text == "4"
    screenshot(driver, "map-clusters")
    cluster.click()
    wait_for(driver, lambda d: "zoom=8" in d.current_url)


def test_look_around_shows_the_note_ahead_and_hides_the_one_behind(board, browser_factory):
    driver = browser_factory()
    # No position in the URL: the page asks the browser, whose geolocation the driver sets to HERE.
    driver.get(page_url(board, view="look", radius=200, facing=0))
    wait_for(driver, lambda d: "Straight ahead: the notice board" in messages(d, "#look-notes .message"))
    assert f"lat={HERE[0]:.6f}" in driver.current_url
    assert "Behind you: the bakery" not in messages(driver, "#look-notes .message")
    # Short on screen, the whole sentence for screen readers (and as the title).
    assert driver.find_element(By.ID, "behind").text.split("\n")[0] == "↓ 1 behind"
    assert driver.find_element(By.ID, "behind").get_attribute("title") == "1 note behind you"
    assert "to your right" in driver.find_element(By.ID, "turn-right").accessible_name  # the note to the east
    screenshot(driver, "look-around")

    # The device turns to face south (the compass, through the driver): the view follows.
    driver.execute_cdp_cmd("DeviceOrientation.setDeviceOrientationOverride", {"alpha": 180, "beta": 90, "gamma": 0})
    driver.find_element(By.ID, "compass").click()
    wait_for(driver, lambda d: "Behind you: the bakery" in messages(d, "#look-notes .message"), message="facing south")
    assert "Straight ahead: the notice board" not in messages(driver, "#look-notes .message")
    assert driver.find_element(By.ID, "facing-readout").text == "180° south"

    # On a desktop the dial sets the facing by hand (keyboard too).
    desk = browser_factory(1280, 900)
    desk.get(page_url(board, view="look", lat=HERE[0], lon=HERE[1], radius=200, facing=90))
    wait_for(desk, lambda d: messages(d, "#look-notes .message") == [XSS])
    dial = desk.find_element(By.ID, "facing")
    dial.send_keys(Keys.HOME)
    wait_for(desk, lambda d: "Straight ahead: the notice board" in messages(d, "#look-notes .message"))
    assert "facing=" not in desk.current_url or "facing=0" in desk.current_url


def test_a_second_window_receives_a_new_note_live_and_sees_a_hidden_one_vanish(board, browser_factory, database_url):
    watcher = browser_factory()
    watcher.get(page_url(board, view="list", lat=HERE[0], lon=HERE[1], radius=200))
    wait_for(watcher, lambda d: len(list_messages(d)) == 4)
    wait_for_streams(board, 1)

    poster = browser_factory()
    poster.get(page_url(board, view="post", lat=HERE[0] + 0.0001, lon=HERE[1]))
    poster.find_element(By.ID, "message").send_keys("Free concert in the courtyard at six")
    poster.find_element(By.CSS_SELECTOR, "#compose-tags input[value=entertainment]").click()
    poster.find_element(By.ID, "post-button").click()
    wait_for(watcher, lambda d: "Free concert in the courtyard at six" in list_messages(d), message="the live note")

    added = subprocess.run([BINARY, "moderator", "add", "mod", "--database-url", database_url], input="mod-password-123\n",
                           capture_output=True, text=True, timeout=120)
    assert added.returncode == 0
    token = board.post_json("/api/v1/auth/token", {"username": "mod", "password": "mod-password-123"}).json()["token"]
    post_id = next(post["id"] for post in board.get("/api/v1/posts").json()["posts"] if post["message"].startswith("Free concert"))
    hidden = requests.post(f"{board.url}/api/v1/moderation/posts/{post_id}/hide", json={"reason": "test"},
                           headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert hidden.status_code == 200
    wait_for(watcher, lambda d: "Free concert in the courtyard at six" not in list_messages(d), message="the note vanishes")


def test_a_message_with_markup_is_shown_as_text(board, browser_factory):
    driver = browser_factory()
    driver.get(page_url(board, view="list", lat=HERE[0], lon=HERE[1], radius=200))
    wait_for(driver, lambda d: XSS in list_messages(d))
    assert driver.find_elements(By.CSS_SELECTOR, "#posts img") == []
    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text
    assert driver.execute_script("return document.querySelectorAll('img[src=\"x\"]').length") == 0
