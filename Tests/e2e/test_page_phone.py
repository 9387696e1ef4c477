"""The page on a phone (issue 19), at 390×844 with touch, and on a desktop: the first screen is the
board around you; touch targets are 44 px; location errors say what happened; only a confirmed
long-press sets a position by hand; no direction is saved without a compass; the offline banner;
honest empty states; a note's own link with share and report; "More notes" after a live note;
tag counts for the area in view and chips that follow the URL; presets and a keyboard time
control; clusters that never overlap at zoom 8–11; a favicon; axe-core on every view of both
pages at both sizes."""
import datetime
import math
import random
import re

import pytest
import requests
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from pages import (at_bearing, boxes, iso, js, list_messages, offset, overlaps, screenshot, serious, serve_board, settle,
                   small_targets, status, wait_for)

HERE = (22.4196, 114.2068)  # a campus
EMPTY = (22.5, 114.0)  # a field with nothing on the board
MORE = (22.2, 113.9)  # 60 notes in a row, for "More notes"
CITY = (22.33, 114.17)
FAR = (48.8566, 2.3522)
PASSWORD = "phone-password-123"
CAMPUS = ["Dumplings at the canteen", "圖書館三樓很安靜", "Lost umbrella near gate 2", "今天的湯很好喝", "Free concert at six",
          "二手書出售，便宜", "Yoga on the lawn at 7", "自行車停放區滿了", "Great coffee in the union", "有人在打羽毛球嗎？"]


def seed():
    random.seed(7)
    now = datetime.datetime.now(datetime.timezone.utc)
    rows = []
    for number in range(40):
        where = at_bearing(HERE, random.uniform(0, 360), random.uniform(10, 150))
        rows.append({"lat": where[0], "lon": where[1], "message": f"{CAMPUS[number % 10]} ({number})",
                     "tag": ["food", "lifestyle", "entertainment", "fashion", "美食"][number % 5],
                     "createdAt": iso(now - datetime.timedelta(hours=number * 3 + 1))})
    for number in range(3000):
        rows.append({"lat": CITY[0] + random.uniform(-0.25, 0.25), "lon": CITY[1] + random.uniform(-0.3, 0.3),
                     "message": f"City note {number}", "tag": random.choice(["food", "lifestyle", "entertainment", "fashion"]),
                     "createdAt": iso(now - datetime.timedelta(days=random.uniform(0, 300)))})
    for number in range(60):
        where = offset(MORE, 2 + number * 2, 0)
        rows.append({"lat": where[0], "lon": where[1], "message": f"Row note {number}", "tag": "lifestyle",
                     "createdAt": iso(now - datetime.timedelta(days=1))})
    rows.append({"lat": FAR[0], "lon": FAR[1], "message": "Far away", "tag": "faraway", "createdAt": iso(now)})
    return rows


@pytest.fixture(scope="module")
def board():
    yield from serve_board(seed(), moderator=("pat", PASSWORD))


def moderator_token(board):
    return requests.post(board.url + "/api/v1/auth/token", json={"username": "pat", "password": PASSWORD}, timeout=30).json()["token"]


def url_param(driver, name):
    match = re.search(rf"[?&]{name}=([^&#]*)", driver.current_url)
    return match.group(1) if match else None


def fail_location(driver, code):
    """The page's geolocation answers with the given error (1 denied, 2 unavailable, 3 timeout)."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": f"""
        navigator.geolocation.getCurrentPosition = (ok, fail) => setTimeout(() => fail({{code: {code}, message: 'test'}}), 200);"""})


def test_the_first_screen_is_the_board_around_you(board, browsers):
    driver = browsers.start("phone", where=HERE)
    driver.get(board.url + "/")
    # Location is asked once; the map opens on the person, with the notes around them.
    wait_for(driver, lambda d: url_param(d, "lat") == f"{HERE[0]:.6f}", message="located")
    wait_for(driver, lambda d: int(url_param(d, "zoom") or 0) >= 15, message="the map zoomed to the person")
    markers = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".note-marker[data-id]"), message="notes around")
    assert any(0 < marker.rect["y"] < 844 for marker in markers)
    wait_for(driver, lambda d: "Finding where you are" not in status(d), message="the finding message goes")
    assert re.fullmatch(r"\d+ notes in view\.", status(driver)) or status(driver).startswith("Found you")
    locate = driver.find_element(By.ID, "locate-map")
    assert locate.rect["width"] >= 44 and locate.rect["height"] >= 44 and locate.rect["y"] + locate.rect["height"] <= 844 - 60
    # The filters fold into one bar; the views are a tab bar at the foot of the screen.
    assert driver.find_element(By.ID, "filters-toggle").get_attribute("aria-expanded") == "false"
    assert not driver.find_element(By.ID, "filter-panel").is_displayed()
    assert driver.find_element(By.ID, "map").rect["y"] < 220
    tabbar = driver.find_element(By.CSS_SELECTOR, ".tabbar").rect
    assert abs(tabbar["y"] + tabbar["height"] - 844) <= 1
    assert small_targets(driver) == []
    screenshot(driver, "phone-first-screen")
    # The locate button brings the map back to the person.
    js(driver, "window.scrollTo(0, 0)")
    driver.find_element(By.CSS_SELECTOR, ".leaflet-control-zoom-out").click()
    wait_for(driver, lambda d: int(url_param(d, "zoom")) == 15)
    js(driver, "window.dispatchEvent(new Event('resize'))")
    locate.click()
    wait_for(driver, lambda d: int(url_param(d, "zoom")) >= 16, message="back on the person")

    desk = browsers.start("desktop", where=HERE)
    desk.get(board.url + "/")
    wait_for(desk, lambda d: d.find_elements(By.CSS_SELECTOR, ".note-marker[data-id]"), message="notes on the desktop map")
    # A desktop keeps the filters open beside the map.
    assert desk.find_element(By.ID, "filter-panel").is_displayed()
    assert not desk.find_element(By.ID, "filters-toggle").is_displayed()
    assert desk.find_element(By.ID, "map").rect["width"] > 800
    screenshot(desk, "desktop-first-screen")


def test_touch_targets_on_every_view(board, browsers):
    driver = browsers.start("phone", where=HERE)
    driver.get(f"{board.url}/?view=list&lat={HERE[0]}&lon={HERE[1]}")
    wait_for(driver, lambda d: len(list_messages(d)) >= 30)
    for view in ("list", "look", "mine", "post", "map"):
        driver.find_element(By.ID, f"tab-{view}").click()
        settle(0.8)
        assert small_targets(driver) == [], (view, small_targets(driver))
        if view == "map":  # back on the map it says again how many notes it shows
            wait_for(driver, lambda d: re.fullmatch(r"[\d,]+ notes in view\.", status(d)), message="the map's count")
        screenshot(driver, f"phone-{view}")
    driver.find_element(By.ID, "filters-toggle").click()
    assert small_targets(driver) == []
    screenshot(driver, "phone-filters-open")


@pytest.mark.parametrize("code, words", [
    (1, "Location is turned off for this page"),
    (2, "Your device could not tell where you are"),
    (3, "Finding your position took too long"),
])
def test_location_errors_say_what_happened(board, browsers, code, words):
    driver = browsers.start("phone")
    fail_location(driver, code)
    driver.get(board.url + "/?view=list")
    # The words stay in sight (an alert, read once), with a way to try again; "Finding…" is gone.
    wait_for(driver, lambda d: d.find_element(By.ID, "location-problem-text").text.startswith(words), message=f"the words for error {code}")
    problem = driver.find_element(By.ID, "location-problem")
    assert problem.is_displayed() and problem.find_element(By.ID, "location-retry").is_displayed()
    assert problem.find_element(By.ID, "location-problem-text").get_attribute("role") == "alert"
    assert "Finding where you are" not in status(driver)
    # Without a position there is no area to count tags in: the chips show no counts.
    assert driver.find_elements(By.CSS_SELECTOR, "#tag-chips button") and not driver.find_elements(By.CSS_SELECTOR, "#tag-chips .count")
    if code == 1:
        screenshot(driver, "phone-location-denied")
    driver.quit()
    browsers.drivers.remove(driver)


def touch(driver, point, seconds):
    """A finger on the screen at `point` for `seconds` (CDP touch events: real pointer events in the page)."""
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
    settle(seconds)
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_only_a_confirmed_long_press_sets_the_position_and_no_compass_means_no_direction(board, browsers):
    # On a desktop a right-click is the long-press; Cancel leaves the position alone.
    desk = browsers.start("desktop")
    fail_location(desk, 1)
    desk.get(board.url + "/?view=map")
    wait_for(desk, lambda d: d.find_element(By.ID, "location-problem-text").text.startswith("Location is turned off"))
    ActionChains(desk).context_click(desk.find_element(By.ID, "map")).perform()
    dialog = wait_for(desk, lambda d: d.find_element(By.ID, "position-dialog").get_attribute("open") is not None and d.find_element(By.ID, "position-dialog"))
    assert "set by hand" in dialog.text
    assert desk.switch_to.active_element.get_attribute("id") == "position-cancel"
    screenshot(desk, "desktop-position-confirm")
    desk.find_element(By.ID, "position-cancel").click()
    assert url_param(desk, "lat") is None

    driver = browsers.start("phone")
    fail_location(driver, 1)
    driver.get(board.url + "/?view=map")
    wait_for(driver, lambda d: d.find_element(By.ID, "location-problem-text").text.startswith("Location is turned off"))
    # The map settled (fitted under the notice, on the busiest area, its pins drawn), then a spot of
    # bare map (no pin, notice or button under the finger).
    wait_for(driver, lambda d: d.find_element(By.ID, "map-busiest").is_displayed() and re.search(r"\d+ notes? in view", status(d)),
             message="the map settled")
    settle(0.5)
    point = js(driver, """const box = document.getElementById('map').getBoundingClientRect();
        for (const [fx, fy] of [[0.5, 0.5], [0.25, 0.75], [0.75, 0.75], [0.25, 0.5], [0.75, 0.5], [0.5, 0.85]]) {
          const x = box.left + box.width * fx, y = box.top + box.height * fy;
          const hit = document.elementFromPoint(x, y);
          if (hit && !hit.closest('.leaflet-marker-icon, .leaflet-control, .map-notice, button')) return {x, y};
        }
        return null;""")
    assert point, "bare map to press"
    touch(driver, point, 0.15)  # a tap pans and opens notes: it never moves the position
    settle(0.8)
    assert url_param(driver, "lat") is None and driver.find_element(By.ID, "position-dialog").get_attribute("open") is None
    touch(driver, point, 0.9)  # a long-press asks first
    wait_for(driver, lambda d: d.find_element(By.ID, "position-dialog").get_attribute("open") is not None, message="the question")
    screenshot(driver, "phone-position-confirm")
    driver.find_element(By.ID, "position-confirm").click()
    wait_for(driver, lambda d: url_param(d, "lat") is not None, message="the position set by hand")
    assert status(driver) == "Position set by hand: look around or post here."
    assert not driver.find_element(By.ID, "location-problem").is_displayed()

    driver.find_element(By.ID, "tab-post").click()
    assert "set by hand" in driver.find_element(By.ID, "compose-where").text
    heading = driver.find_element(By.ID, "with-heading")
    assert not heading.is_enabled() and "No compass reading yet" in driver.find_element(By.ID, "heading-hint").text
    driver.find_element(By.ID, "message").send_keys("Posted from a place chosen by hand")
    driver.find_element(By.ID, "post-button").click()
    wait_for(driver, lambda d: "Posted your food note" in status(d))
    posted = requests.get(board.url + "/api/v1/posts", params={"limit": 1}, timeout=30).json()["posts"][0]
    assert posted["message"] == "Posted from a place chosen by hand" and posted["heading"] is None

    # With a compass reading the direction is recorded, as read.
    driver.execute_cdp_cmd("DeviceOrientation.setDeviceOrientationOverride", {"alpha": 270, "beta": 90, "gamma": 0})
    driver.find_element(By.ID, "tab-look").click()
    driver.find_element(By.ID, "compass").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "facing-readout").text == "90° east")
    driver.find_element(By.ID, "tab-post").click()
    assert heading.is_enabled() and heading.is_selected()
    driver.find_element(By.ID, "message").send_keys("Facing east")
    driver.find_element(By.ID, "post-button").click()
    wait_for(driver, lambda d: "Posted your food note" in status(d) and d.find_element(By.ID, "message").get_attribute("value") == "")
    posted = requests.get(board.url + "/api/v1/posts", params={"limit": 1}, timeout=30).json()["posts"][0]
    assert posted["message"] == "Facing east" and posted["heading"] == 90


def test_offline_banner_with_retry_and_paused_live_updates(board, browsers):
    driver = browsers.start("phone", where=HERE)
    driver.get(f"{board.url}/?view=list&lat={HERE[0]}&lon={HERE[1]}")
    wait_for(driver, lambda d: len(list_messages(d)) >= 30)
    assert not driver.find_element(By.ID, "offline").is_displayed()
    # The board goes out of reach (the browser itself stays online, so only "Try again" brings it back at once).
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/v1/*"]})
    chip = driver.find_element(By.CSS_SELECTOR, '#tag-chips button[data-tag="food"]')
    js(driver, "arguments[0].scrollIntoView({block: 'nearest', inline: 'center'})", chip)  # a swipe along the chips
    chip.click()
    banner = wait_for(driver, lambda d: d.find_element(By.ID, "offline").is_displayed() and d.find_element(By.ID, "offline"), message="the banner")
    assert "cannot be reached" in banner.text and "Live updates paused." in banner.text
    assert "stale" in driver.find_element(By.ID, "posts").get_attribute("class")  # the old list is dimmed, not passed off as food
    assert status(driver).startswith("The board cannot be reached") and "The notes shown are from before." in status(driver)
    assert "Failed to fetch" not in driver.page_source
    screenshot(driver, "phone-offline")
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    driver.find_element(By.ID, "offline-retry").click()
    wait_for(driver, lambda d: not d.find_element(By.ID, "offline").is_displayed(), timeout=15, message="the banner goes")
    wait_for(driver, lambda d: "stale" not in d.find_element(By.ID, "posts").get_attribute("class"))
    tags = js(driver, "return [...document.querySelectorAll('#posts .note-title .tag')].map(e => e.textContent)")
    assert tags and set(tags) == {"food"}


def test_empty_states_say_whether_the_place_or_the_filter_is_empty(board, browsers):
    driver = browsers.start("phone", where=EMPTY)
    driver.get(f"{board.url}/?view=list&lat={EMPTY[0]}&lon={EMPTY[1]}&radius=200")
    wait_for(driver, lambda d: d.find_element(By.ID, "list-empty").is_displayed())
    assert driver.find_element(By.ID, "list-empty-text").text == "No notes within 200 m yet: leave the first."
    assert driver.find_element(By.ID, "list-post-first").is_displayed() and not driver.find_element(By.ID, "list-clear-filters").is_displayed()
    # Where there are no notes, no tag is offered to filter by (once counted: a row of "0" is noise).
    wait_for(driver, lambda d: js(d, "return document.querySelectorAll('#tag-chips button').length") == 0, message="no empty tag chips")
    screenshot(driver, "phone-empty-place")
    driver.find_element(By.ID, "tab-look").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "look-empty").text == "No notes within 200 m yet: post the first one here.")
    screenshot(driver, "phone-empty-look")
    # A filter where there is nothing at all does not claim the filter hides notes: it offers to post.
    driver.get(f"{board.url}/?view=list&lat={EMPTY[0]}&lon={EMPTY[1]}&radius=200&tag=food")
    wait_for(driver, lambda d: d.find_element(By.ID, "list-empty").is_displayed()
             and d.find_element(By.ID, "list-empty-text").text == "No notes within 200 m yet: leave the first.", message="nothing here at all")
    assert driver.find_element(By.ID, "list-post-first").is_displayed() and driver.find_element(By.ID, "list-clear-filters").is_displayed()

    driver.get(f"{board.url}/?view=list&lat={HERE[0]}&lon={HERE[1]}&radius=200&tag=sports")
    wait_for(driver, lambda d: d.find_element(By.ID, "list-empty").is_displayed())
    assert "match these filters" in driver.find_element(By.ID, "list-empty-text").text
    assert "match these filters" in status(driver)
    # The chosen tag stays offered, with its 0, so it can be unchosen; the others have notes here.
    chips = wait_for(driver, lambda d: js(d, "return [...document.querySelectorAll('#tag-chips button .count')].map(c => [c.parentElement.dataset.tag, c.textContent])"))
    assert ["sports", "0"] in chips and all(count != "0" for tag, count in chips if tag != "sports"), chips
    screenshot(driver, "phone-empty-filtered")
    driver.find_element(By.ID, "list-clear-filters").click()
    wait_for(driver, lambda d: len(list_messages(d)) >= 30 and "tag=" not in d.current_url)


def test_a_note_has_its_own_link_to_share_and_report(board, browsers):
    driver = browsers.start("phone", where=HERE)
    driver.get(f"{board.url}/?view=list&lat={HERE[0]}&lon={HERE[1]}")
    wait_for(driver, lambda d: len(list_messages(d)) >= 30)
    first = driver.find_element(By.CSS_SELECTOR, "#posts li[data-id]")
    note_id = int(first.get_attribute("data-id"))
    time_link = first.find_element(By.CSS_SELECTOR, ".note-title a")
    assert re.fullmatch(r"(\d+ (minutes?|hours?|days?) ago|yesterday|just now)", time_link.text), time_link.text
    assert time_link.find_element(By.TAG_NAME, "time").get_attribute("title")  # the full date on hover
    time_link.click()
    wait_for(driver, lambda d: d.find_element(By.ID, "thread").get_attribute("open") is not None)
    assert driver.current_url.endswith(f"#/note/{note_id}")
    assert re.search(r"\d+ m, (north|south|east|west)", driver.find_element(By.ID, "thread-note").text)

    # Share: the system's share sheet where there is one…
    js(driver, "window.shared = null; Object.defineProperty(navigator, 'share', {configurable: true, value: (data) => { window.shared = data; return Promise.resolve(); }})")
    driver.find_element(By.ID, "share-note").click()
    shared = wait_for(driver, lambda d: js(d, "return window.shared"))
    assert shared["url"] == f"{board.url}/#/note/{note_id}"
    # …else the link is copied.
    js(driver, "Object.defineProperty(navigator, 'share', {configurable: true, value: undefined})")
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": board.url, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    driver.find_element(By.ID, "share-note").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "share-status").text.startswith("Link copied") or d.find_element(By.ID, "share-fallback").is_displayed())
    if driver.find_element(By.ID, "share-fallback").is_displayed():
        assert driver.find_element(By.ID, "share-link").get_attribute("value") == f"{board.url}/#/note/{note_id}"

    # Report, with a reason.
    driver.find_element(By.ID, "report-note").click()
    driver.find_element(By.CSS_SELECTOR, "#report-form input[value=personal]").find_element(By.XPATH, "..").click()
    screenshot(driver, "phone-note-report")
    driver.find_element(By.ID, "report-send").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "share-status").text.startswith("Thank you"))
    reported = requests.get(board.url + "/api/v1/moderation/posts", params={"reported": "true"},
                            headers={"Authorization": f"Bearer {moderator_token(board)}"}, timeout=30).json()["posts"]
    assert [(post["id"], post["reportCount"]) for post in reported] == [(note_id, 1)]
    violations = serious(driver)
    assert violations == [], violations
    driver.find_element(By.ID, "thread-close").click()
    wait_for(driver, lambda d: "#/note/" not in d.current_url, message="the note's address goes with it")

    # The link opens the note on another phone, and a second report from the same client counts once.
    other = browsers.start("phone", where=HERE)
    other.get(f"{board.url}/#/note/{note_id}")
    wait_for(other, lambda d: d.find_element(By.ID, "thread").get_attribute("open") is not None, message="the shared link opens the note")
    assert first.find_element(By.CSS_SELECTOR, ".message").text in other.find_element(By.ID, "thread-note").text
    screenshot(other, "phone-note-link")
    other.find_element(By.ID, "report-note").click()
    other.find_element(By.ID, "report-send").click()
    wait_for(other, lambda d: d.find_element(By.ID, "share-status").text.startswith("You had reported this note already"))

    # A link to a note no longer on the board says so, and it stays said while the map loads, until dismissed.
    other.get(f"{board.url}/?view=map#/note/999999999")
    problem = wait_for(other, lambda d: d.find_element(By.ID, "link-problem").is_displayed() and d.find_element(By.ID, "link-problem"),
                       message="the gone note said")
    assert problem.find_element(By.ID, "link-problem-text").text == "This note is no longer on the board."
    assert "#/note/" not in other.current_url
    settle(1.5)  # the map has loaded and said its count
    assert problem.is_displayed() and serious(other) == []
    screenshot(other, "phone-note-gone")
    problem.find_element(By.ID, "link-problem-close").click()
    assert not problem.is_displayed()


def test_more_notes_after_a_live_note_keeps_order_without_duplicates(board, browsers):
    driver = browsers.start("phone", where=MORE)
    driver.get(f"{board.url}/?view=list&lat={MORE[0]}&lon={MORE[1]}&radius=200")
    wait_for(driver, lambda d: len(list_messages(d)) == 50)
    settle(0.5)  # the live stream is open
    beyond = offset(MORE, 119.5, 0)
    near = offset(MORE, 1, 0)
    for where, message in ((beyond, "Live beyond the 50th"), (near, "Live nearest")):
        assert board.post({"lat": where[0], "lon": where[1], "message": message, "tag": "lifestyle"}).status_code == 201
    wait_for(driver, lambda d: list_messages(d)[0] == "Live nearest", message="the live note in its place")
    assert "Live beyond the 50th" not in list_messages(driver)  # its place is on a later page
    driver.find_element(By.ID, "more").click()
    wait_for(driver, lambda d: len(list_messages(d)) == 62)
    ids = js(driver, "return [...document.querySelectorAll('#posts li[data-id]')].map(e => Number(e.dataset.id))")
    expected = [post["id"] for post in requests.get(board.url + "/api/v1/posts/nearby", params={"lat": MORE[0], "lon": MORE[1], "radius": 200, "limit": 100},
                                                    timeout=30).json()["posts"]]
    assert len(set(ids)) == len(ids) and ids == expected


def test_tag_counts_for_the_area_chips_from_the_url_presets_and_keyboard_time(board, browsers):
    driver = browsers.start("phone", where=HERE)
    driver.get(f"{board.url}/?view=map&lat={HERE[0]}&lon={HERE[1]}&zoom=16&tag=FOOD")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '#tag-chips button[data-tag="food"]'))
    assert url_param(driver, "tag") == "food"
    chips = js(driver, "return [...document.querySelectorAll('#tag-chips button')].map(b => [b.dataset.tag, b.getAttribute('aria-pressed'), b.querySelector('.count').textContent])")
    assert [chip for chip in chips if chip[1] == "true"] == [chips[0]] and chips[0][0] == "food"
    assert "FOOD" not in [chip[0] for chip in chips] and "faraway" not in [chip[0] for chip in chips]
    bbox = driver.execute_async_script("const done = arguments[arguments.length - 1]; import('/map.js').then((m) => done(m.currentBBox()));")
    counts = {item["tag"]: item["count"] for item in requests.get(board.url + "/api/v1/tags", params={"bbox": bbox}, timeout=30).json()["tags"]}
    assert 0 < sum(counts.values()) < 3000  # the campus in view, not the whole world
    for tag, pressed, shown in chips:
        assert int(shown.replace(",", "")) == counts.get(tag, 0), (tag, shown, counts)
        assert pressed == "true" or counts.get(tag, 0) > 0, "a tag with no notes here is not offered"

    # Around me the chips count the list's own circle: each count is what choosing that tag lists.
    # A note in a corner of the circle's box, outside the circle, is not counted.
    lat, lon, radius = driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; import('/state.js').then((m) => done([m.state.lat, m.state.lon, m.state.radius]));")
    corner_at = {"lat": lat + 0.9 * radius / 111_195, "lon": lon + 0.9 * radius / (111_195 * math.cos(math.radians(lat)))}
    key = {"X-Device-Key": "corner-device-0123456789"}
    corner = requests.post(board.url + "/api/v1/posts", json={**corner_at, "message": "In the box's corner", "tag": "corner"},
                           headers=key, timeout=30).json()
    driver.find_element(By.ID, "tab-list").click()
    circle = {item["tag"]: item["count"] for item in requests.get(
        board.url + "/api/v1/tags", params={"lat": lat, "lon": lon, "radius": radius}, timeout=30).json()["tags"]}
    chip_counts = lambda d: {tag: int(count.replace(",", "")) for tag, count in js(
        d, "return [...document.querySelectorAll('#tag-chips button')].map(b => [b.dataset.tag, b.querySelector('.count').textContent])")}
    wait_for(driver, lambda d: all(chip_counts(d).get(tag) == count for tag, count in circle.items()), message="the chips count the circle")
    assert circle != counts  # the map's view and the list's circle are different areas here
    for tag, count in chip_counts(driver).items():
        listed, cursor = 0, None
        while True:
            page = requests.get(board.url + "/api/v1/posts/nearby", params={"lat": lat, "lon": lon, "radius": radius, "tag": tag, "limit": 500,
                                                                           "fields": "id", "cursor": cursor}, timeout=30).json()
            listed += len(page["posts"])
            if not (cursor := page["nextCursor"]):
                break
        assert listed == count, (tag, listed, count)
    assert "corner" not in chip_counts(driver)
    assert requests.delete(f"{board.url}/api/v1/posts/{corner['id']}", headers=key, timeout=30).status_code == 204
    driver.find_element(By.ID, "tab-map").click()

    driver.find_element(By.ID, "filters-toggle").click()
    # Keyboard hints are for keyboards: a touch phone is not shown them.
    assert not driver.find_element(By.ID, "range-keys").is_displayed()
    assert js(driver, "return [...document.querySelectorAll('.keys-hint')].map((e) => getComputedStyle(e).display)") == ["none", "none"]
    driver.find_element(By.CSS_SELECTOR, '[data-preset="week"]').click()
    pressed = js(driver, "return [...document.querySelectorAll('[data-preset]')].map(b => [b.dataset.preset, b.getAttribute('aria-pressed')])")
    assert pressed == [["today", "false"], ["week", "true"], ["month", "false"], ["all", "false"]]
    driver.find_element(By.CSS_SELECTOR, '[data-preset="all"]').click()
    start = driver.find_element(By.ID, "range-from")
    start.send_keys(Keys.ARROW_RIGHT)
    assert start.get_attribute("value") == "1"
    start.send_keys(Keys.PAGE_UP)
    assert start.get_attribute("value") == "8"
    ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.ARROW_RIGHT).key_up(Keys.SHIFT).perform()
    assert start.get_attribute("value") == "38"
    begin = js(driver, "const d = new Date(); d.setHours(24, 0, 0, 0); d.setDate(d.getDate() - 3 * 365 + 38); return d.toISOString()")
    wait_for(driver, lambda d: url_param(d, "from") == begin.replace(":", "%3A") or url_param(d, "from") == begin)
    assert start.get_attribute("aria-valuetext")  # the date, in words
    screenshot(driver, "phone-filters-keyboard")


def test_clusters_never_overlap_at_city_zooms_and_there_is_a_favicon(board, browsers):
    driver = browsers.start("desktop")
    for zoom in (8, 9, 10, 11):
        driver.get(f"{board.url}/?view=map&lat={CITY[0]}&lon={CITY[1]}&zoom={zoom}")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".cluster") and re.search(r"\d", status(d)), message=f"clusters at {zoom}")
        settle(0.3)
        found = boxes(driver, ".cluster")
        assert overlaps(found) == [], (zoom, overlaps(found))
        total = sum(int(box["id"].replace(",", "")) for box in found)
        assert status(driver) == f"{total:,} notes in view.", (zoom, status(driver), total)
        if zoom == 10:
            screenshot(driver, "desktop-clusters-zoom10")
    favicon = requests.get(board.url + "/favicon.ico", timeout=30)
    assert favicon.status_code == 200 and favicon.headers["Content-Type"].startswith("image/")
    assert requests.get(board.url + "/favicon.svg", timeout=30).headers["Content-Type"].startswith("image/svg")
    assert driver.find_element(By.CSS_SELECTOR, "link[rel=icon]").get_attribute("href").endswith("/favicon.svg")


@pytest.mark.parametrize("kind", ["phone", "desktop"])
def test_axe_finds_nothing_serious_on_any_view_of_either_page(board, browsers, kind):
    driver = browsers.start(kind, where=HERE)
    driver.get(f"{board.url}/?view=map&lat={HERE[0]}&lon={HERE[1]}&zoom=16")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".note-marker[data-id]"))
    found = {}
    found["map"] = serious(driver)
    marker = driver.find_element(By.CSS_SELECTOR, ".note-marker[data-id]")
    js(driver, "arguments[0].focus()", marker)
    ActionChains(driver).send_keys(Keys.ENTER).perform()  # markers crowd each other: the keyboard picks exactly this one
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".leaflet-popup-content .note-actions"))
    wait_for(driver, lambda d: js(d, "return getComputedStyle(document.querySelector('.leaflet-popup')).opacity") == "1", message="the popup faded in")
    found["map popup"] = serious(driver)
    for view in ("list", "look", "mine", "post"):
        driver.find_element(By.ID, f"tab-{view}").click()
        settle(0.8)
        found[view] = serious(driver)
    driver.find_element(By.ID, "tab-list").click()
    if kind == "phone":
        driver.find_element(By.ID, "filters-toggle").click()
        found["filters"] = serious(driver)
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#posts .replies"))
    driver.find_element(By.CSS_SELECTOR, "#posts .replies").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "thread").get_attribute("open") is not None)
    driver.find_element(By.ID, "report-note").click()
    found["note"] = serious(driver)
    driver.find_element(By.ID, "thread-close").click()

    driver.get(board.url + "/moderate")
    found["moderation login"] = serious(driver)
    driver.find_element(By.ID, "username").send_keys("pat")
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "#login button[type=submit]").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "tab-notes").is_displayed())
    for view in ("dashboard", "notes", "audit", "beacons", "places"):
        driver.find_element(By.ID, f"tab-{view}").click()
        settle(1.0)
        found[f"moderation {view}"] = serious(driver)
    screenshot(driver, f"{kind}-moderation-places")
    assert {view: violations for view, violations in found.items() if violations} == {}
