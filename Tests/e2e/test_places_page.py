"""Places in headless Chromium against the real server: a moderator draws a place on the
moderation page by clicking the map, saves it and announces in it; a visitor on a phone inside
it sees the banner, posts there and keeps to the place with "This place only"; axe-core finds no
accessibility violations; a bow tie is refused with the server's polygon error."""
import datetime
import math
import os
import subprocess
import time

import pytest
import requests
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from accessibility import axe_violations
from pages import set_language
from conftest import BINARY, Server, new_data_dir, shared_postgres, stop_and_clean
from test_browser import HERE, METRES_PER_DEGREE, browser_factory, screenshot, wait_for  # noqa: F401 (fixture)

WEB = os.path.join(os.path.dirname(__file__), "../../web")
OPENING_ZOOM = 17  # the moderation map opens on the busiest spot at this zoom
# The square drawn, in pixels from the map's centre (x right, y down), clockwise from top left.
SQUARE = [(-90, -70), (90, -70), (90, 70), (-90, 70)]
BOW_TIE = [(-90, -70), (90, 70), (90, -70), (-90, 70)]  # its first and third edges cross
INSIDE = ["Soup queue is short", "Lost: a blue umbrella", "Chess club at four"]
OUTSIDE = "Bike sale by the river"  # 2 km east of the place


@pytest.fixture(scope="module")
def places_board():
    """One server for the module: a moderator, three notes at HERE (the busiest spot) and one
    2 km east of it. The page is served from web/ so the test sees the page as edited."""
    data_dir = new_data_dir()
    database_url = shared_postgres().create()
    server = None
    try:
        added = subprocess.run([BINARY, "moderator", "add", "alice", "--database-url", database_url], input="alice-password-123\n",
                               capture_output=True, text=True, timeout=120)
        assert added.returncode == 0, added.stderr
        server = Server(data_dir, "--post-rate-per-minute", "0", "--tile-url", "/no-tiles/{z}/{x}/{y}.png", "--web-dir", WEB, database_url=database_url)
        for message in INSIDE:
            assert server.post({"lat": HERE[0], "lon": HERE[1], "message": message, "tag": "food"}).status_code == 201
        east = HERE[1] + 2000 / (METRES_PER_DEGREE * math.cos(math.radians(HERE[0])))
        assert server.post({"lat": HERE[0], "lon": east, "message": OUTSIDE, "tag": "lifestyle"}).status_code == 201
        yield server
    finally:
        stop_and_clean(server, data_dir, database_url)


def log_in(driver, server):
    driver.get(server.url + "/moderate")
    driver.find_element(By.ID, "username").send_keys("alice")
    driver.find_element(By.ID, "password").send_keys("alice-password-123")
    driver.find_element(By.CSS_SELECTOR, "#login button[type=submit]").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "tab-places").is_displayed(), message="logged in")
    driver.find_element(By.ID, "tab-places").click()
    # The map opens on the busiest spot (HERE): its tiles are asked for at the opening zoom.
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f'#place-map img.leaflet-tile[src*="/no-tiles/{OPENING_ZOOM}/"]'),
             message="the map opened on the busiest spot")


def draw(driver, points):
    """Real clicks on the map, at pixel offsets from its centre."""
    area = driver.find_element(By.ID, "place-map")
    for x, y in points:
        ActionChains(driver).move_to_element_with_offset(area, x, y).click().perform()
    wait_for(driver, lambda d: d.find_element(By.ID, "vertex-count").text.startswith(f"{len(points)} corners"),
             message=f"{len(points)} corners drawn")


def expected_ring(points):
    """The [lon, lat] of pixel offsets from HERE at the opening zoom (Web Mercator, 256 px tiles)."""
    world = 256 * 2 ** OPENING_ZOOM
    centre_x = (HERE[1] + 180) / 360 * world
    centre_y = (1 - math.log(math.tan(math.radians(HERE[0])) + 1 / math.cos(math.radians(HERE[0]))) / math.pi) / 2 * world
    ring = []
    for dx, dy in points:
        x, y = centre_x + dx, centre_y + dy
        lon = x / world * 360 - 180
        lat = math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y / world))))
        ring.append([lon, lat])
    return ring


def ring_matches(polygon, points, pixels=2):
    """Whether a saved ring is the one clicked, each corner within a few pixels."""
    pixel = 360 / (256 * 2 ** OPENING_ZOOM)
    return len(polygon) == len(points) and all(
        abs(lon - want_lon) <= pixels * pixel and abs(lat - want_lat) <= pixels * pixel * math.cos(math.radians(HERE[0]))
        for (lon, lat), (want_lon, want_lat) in zip(polygon, expected_ring(points)))


def list_messages(driver):
    return driver.execute_script("return [...document.querySelectorAll('#posts .message')].map(e => e.textContent)")


def status(driver):
    return driver.find_element(By.ID, "status").text



def click_chip(driver, tag):
    """Taps a tag chip. The chips are drawn anew whenever the tag counts arrive, which may be just
    after the list they belong to: a chip found a moment before may be gone by the tap."""
    for _ in range(20):
        try:
            driver.find_element(By.CSS_SELECTOR, f'#tag-chips button[data-tag="{tag}"]').click()
            return
        except StaleElementReferenceException:
            time.sleep(0.1)
    raise AssertionError(f"the {tag} chip kept being redrawn")

def test_a_bow_tie_shows_the_servers_polygon_error(places_board, browser_factory):
    server = places_board
    driver = browser_factory(1280, 900)
    log_in(driver, server)
    draw(driver, BOW_TIE)
    driver.find_element(By.ID, "p-name").send_keys("Bow tie")
    assert driver.find_element(By.ID, "p-slug").get_attribute("value") == "bow-tie"  # made from the name
    driver.find_element(By.ID, "save-place").click()
    error = wait_for(driver, lambda d: d.find_element(By.ID, "p-polygon-error").text, message="the polygon error")
    assert "polygon must not cross itself" in error, error
    assert "edges 0 and 2" in error, error
    screenshot(driver, "places-moderation-bow-tie")
    assert server.get("/api/v1/places/bow-tie").status_code == 404

    # Undo and Clear edit the drawing.
    driver.find_element(By.ID, "undo-vertex").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "vertex-count").text.startswith("3 corners"))
    driver.find_element(By.ID, "clear-vertices").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "vertex-count").text == "No corners yet")
    assert driver.find_elements(By.CSS_SELECTOR, "#place-map .vertex") == []


def test_a_drawn_place_gets_a_banner_an_announcement_and_a_filter(places_board, browser_factory):
    server = places_board
    moderator = browser_factory(1280, 900)
    log_in(moderator, server)

    # Draw the place with four clicks, name it, save it: the API has the polygon drawn.
    draw(moderator, SQUARE)
    assert len(moderator.find_elements(By.CSS_SELECTOR, "#place-map .vertex")) == 4
    moderator.find_element(By.ID, "p-name").send_keys("Canteen")
    moderator.find_element(By.ID, "p-description").send_keys("Hot lunches from noon")
    moderator.find_element(By.ID, "save-place").click()
    wait_for(moderator, lambda d: "Saved Canteen" in status(d), message="saved")
    place = server.get("/api/v1/places/canteen").json()
    assert place["name"] == "Canteen" and place["floors"] is None and place["description"] == "Hot lunches from noon"
    assert ring_matches(place["polygon"], SQUARE), (place["polygon"], expected_ring(SQUARE))
    assert place["postCount"] == len(INSIDE)

    # Corners are draggable: the top right one moved 40 px further right, saved again.
    # (Leaflet starts a drag after a few pixels: the corner moves by what the page shows.)
    corner = moderator.find_elements(By.CSS_SELECTOR, "#place-map .vertex")[1]
    before = corner.location["x"]
    ActionChains(moderator).click_and_hold(corner).move_by_offset(10, 0).move_by_offset(30, 0).release().perform()
    moved_by = moderator.find_elements(By.CSS_SELECTOR, "#place-map .vertex")[1].location["x"] - before
    assert moved_by >= 20, moved_by
    assert moderator.find_element(By.ID, "vertex-count").text.startswith("4 corners")  # the drag added none
    moderator.find_element(By.ID, "save-place").click()
    moved = [SQUARE[0], (SQUARE[1][0] + moved_by, SQUARE[1][1]), SQUARE[2], SQUARE[3]]
    wait_for(moderator, lambda d: ring_matches(server.get("/api/v1/places/canteen").json()["polygon"], moved), message="the dragged corner saved")
    wait_for(moderator, lambda d: [row.get_attribute("data-slug") for row in d.find_elements(By.CSS_SELECTOR, "#places-table tbody tr")] == ["canteen"])

    # An announcement until a local date and time, sent as UTC.
    local_until = (datetime.datetime.now() + datetime.timedelta(days=2)).replace(second=0, microsecond=0)
    message = "Soup of the day: leek and potato"
    moderator.find_element(By.ID, "a-message").send_keys(message)
    moderator.execute_script("document.getElementById('a-until').value = arguments[0]", local_until.strftime("%Y-%m-%dT%H:%M"))
    moderator.find_element(By.CSS_SELECTOR, "#announcement-form button[type=submit]").click()
    wait_for(moderator, lambda d: message in d.find_element(By.ID, "announcement-list").text, message="the announcement listed")
    [announcement] = server.get("/api/v1/places/canteen/announcements").json()["announcements"]
    assert announcement["message"] == message
    assert announcement["until"] == local_until.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:00.000Z")
    screenshot(moderator, "places-moderation")
    assert axe_violations(moderator) == []

    # A visitor on a phone, located at HERE (inside the place), posts a note.
    phone = browser_factory(390, 844)
    phone.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    phone.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    phone.get(f"{server.url}/?view=post&radius=5000")
    banner = wait_for(phone, lambda d: d.find_element(By.ID, "place-banner").is_displayed() and d.find_element(By.ID, "place-banner"),
                      message="the banner of the place the visitor is in")
    assert banner.find_element(By.ID, "place-heading").text == "Canteen"
    # Folded on a phone (issue 38: unfolded it took the first screen), it says there is an announcement.
    fold = banner.find_element(By.ID, "place-fold")
    wait_for(phone, lambda d: fold.text.startswith("1 announcement"), message="the announcement counted on the fold")
    fold.click()
    wait_for(phone, lambda d: message in banner.find_element(By.ID, "place-announcements").text, message="unfolded")
    assert banner.get_attribute("aria-labelledby") == "place-kicker place-heading"
    phone.find_element(By.ID, "message").send_keys("Chips are back")
    phone.find_element(By.ID, "post-button").click()
    wait_for(phone, lambda d: "Posted your food note" in status(d))

    # Around me: every note within 5 km, the one outside the place too; then this place only.
    phone.find_element(By.ID, "tab-list").click()
    wait_for(phone, lambda d: sorted(list_messages(d)) == sorted(INSIDE + ["Chips are back", OUTSIDE]), message="all five notes")
    toggle = phone.find_element(By.ID, "place-only")
    assert toggle.get_attribute("type") == "checkbox" and not toggle.is_selected()
    toggle.click()
    wait_for(phone, lambda d: sorted(list_messages(d)) == sorted(INSIDE + ["Chips are back"]), message="only the notes inside the place")
    assert toggle.is_selected() and "place=canteen" in phone.current_url
    assert server.get("/api/v1/places/canteen").json()["postCount"] == len(INSIDE) + 1
    # Only the place's tags are offered: lifestyle's one note is outside it, and a chip with none is left out.
    wait_for(phone, lambda d: not d.find_elements(By.CSS_SELECTOR, '#tag-chips button[data-tag="lifestyle"]')
             and d.find_elements(By.CSS_SELECTOR, '#tag-chips button .count'), message="tag counts for the place only")
    screenshot(phone, "places-phone-list")
    violations = axe_violations(phone)
    assert violations == [], violations

    # A filter that leaves nothing (a shared link's tag) says so, naming the place; the chosen tag
    # stays offered, with its 0, so it can be unchosen.
    phone.get(phone.current_url + "&tag=lifestyle")
    empty = lambda d: d.find_element(By.ID, "list-empty-text").text
    wait_for(phone, lambda d: list_messages(d) == [] and "No notes in Canteen" in empty(d), message="an honest empty list")
    assert "match these filters" in empty(phone)
    wait_for(phone, lambda d: d.find_element(By.CSS_SELECTOR, '#tag-chips button[data-tag="lifestyle"] .count').text == "0")
    click_chip(phone, "lifestyle")
    wait_for(phone, lambda d: len(list_messages(d)) == len(INSIDE) + 1)

    # Live notes follow the place: one posted inside arrives, one posted outside before it does not.
    east = HERE[1] + 1000 / (METRES_PER_DEGREE * math.cos(math.radians(HERE[0])))
    assert server.post({"lat": HERE[0], "lon": east, "message": "Live outside", "tag": "food"}).status_code == 201
    assert server.post({"lat": HERE[0], "lon": HERE[1], "message": "Live inside", "tag": "food"}).status_code == 201
    wait_for(phone, lambda d: "Live inside" in list_messages(d), message="the live note inside the place")
    assert "Live outside" not in list_messages(phone)

    # The map draws the place, named, and keeps to it too.
    phone.find_element(By.ID, "tab-map").click()
    wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, '#map path[data-place="canteen"]'), message="the place on the map")
    # Read in one script: a zoom settling as the map opens may draw the shape again.
    spoken = lambda d: d.execute_script(
        "const shape = document.querySelector('#map path[data-place=\"canteen\"]');"
        "return shape && [shape.getAttribute('tabindex'), shape.getAttribute('aria-label')];")
    wait_for(phone, lambda d: spoken(d) is not None and spoken(d)[0] == "0" and spoken(d)[1].startswith("Canteen"),
             message="the place named to a screen reader")
    # The banner above the map does not push the map's foot, or its locate button, under the tab bar.
    rect = lambda d, selector: d.execute_script(f"return document.querySelector('{selector}').getBoundingClientRect().toJSON()")
    assert phone.find_element(By.ID, "place-banner").is_displayed()
    wait_for(phone, lambda d: rect(d, "#locate-map")["bottom"] <= rect(d, ".tabbar")["top"]
             and rect(d, "#map")["bottom"] <= rect(d, ".tabbar")["top"], message="the whole map above the tab bar")
    assert rect(phone, "#map")["height"] >= 320
    # Enter on the focused place fits the map to it; the places reloaded after the move keep the focus on it.
    places_loads = lambda d: d.execute_script(
        "return performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/v1/places?')).length")
    phone.execute_script("document.querySelector('#map path[data-place=\"canteen\"]').focus()")
    loads = places_loads(phone)
    ActionChains(phone).send_keys(Keys.ENTER).perform()
    wait_for(phone, lambda d: places_loads(d) > loads, message="the places loaded again after the map fitted the place")
    time.sleep(0.5)  # the answer drawn
    assert phone.execute_script("return document.activeElement.dataset.place") == "canteen"
    # Its spoken name follows the language, and back.
    set_language(phone, "zh-Hans")
    wait_for(phone, lambda d: "则留言" in spoken(d)[1], message="the place's label in Chinese")
    set_language(phone, "en")
    wait_for(phone, lambda d: spoken(d)[1].startswith("Canteen, "), message="the place's label in English")
    # The first tap on a pin opens it: nothing scrolls away under the finger.
    scrolled = lambda d: d.execute_script("return [document.querySelector('.layout').scrollTop, window.scrollY]")
    before_tap = scrolled(phone)
    pin = wait_for(phone, lambda d: next((m for m in d.find_elements(By.CSS_SELECTOR, "#map .leaflet-marker-pane .leaflet-marker-icon") if m.is_displayed()), None),
                   message="a pin")
    ActionChains(phone).move_to_element(pin).click().perform()
    wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, "#map .leaflet-popup"), message="the pin opened at the first tap")
    assert scrolled(phone) == before_tap
    ActionChains(phone).send_keys(Keys.ESCAPE).perform()
    wait_for(phone, lambda d: not d.find_elements(By.CSS_SELECTOR, "#map .leaflet-popup"), message="the pin closed")
    phone.execute_script("document.getElementById('map').scrollIntoView()")
    screenshot(phone, "places-phone-map")
    assert axe_violations(phone) == []

    # Leaving every place takes the banner and the filter away.
    phone.find_element(By.ID, "tab-list").click()
    phone.find_element(By.CSS_SELECTOR, "#where-details summary").click()  # typing a position is tucked under a disclosure
    phone.find_element(By.ID, "lat").clear()
    phone.find_element(By.ID, "lat").send_keys(str(HERE[0] + 0.01))
    phone.find_element(By.CSS_SELECTOR, "#where button[type=submit]").click()
    wait_for(phone, lambda d: not d.find_element(By.ID, "place-banner").is_displayed(), message="the banner goes")
    wait_for(phone, lambda d: "place=" not in d.current_url and OUTSIDE in list_messages(d), message="the filter goes")

    # Without a position (location refused), the map opens on the busiest part, the place: its banner
    # names it as the place on the map, not as where the person is.
    lost = browser_factory(390, 844)
    lost.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        navigator.geolocation.getCurrentPosition = (ok, fail) => setTimeout(() => fail({code: 1, message: 'denied'}), 200);
        navigator.geolocation.watchPosition = (ok, fail) => { setTimeout(() => fail({code: 1, message: 'denied'}), 200); return 1; };"""})
    lost.get(f"{server.url}/?view=map")
    wait_for(lost, lambda d: d.find_element(By.ID, "place-banner").is_displayed() and d.find_element(By.ID, "place-heading").text == "Canteen",
             message="the banner of the place in view")
    assert lost.find_element(By.ID, "place-kicker").text.lower() == "on the map"
    assert lost.execute_script("return new URLSearchParams(location.search).has('lat')") is False
    set_language(lost, "zh-Hans")
    wait_for(lost, lambda d: d.find_element(By.ID, "place-kicker").text == "地图上", message="the kicker in Chinese")
    screenshot(lost, "places-phone-no-position-zh-Hans")

    # On a desktop the public map shows the place, and the banner for the position.
    moderator.get(f"{server.url}/?view=map&zoom=17&lat={HERE[0]}&lon={HERE[1]}")
    wait_for(moderator, lambda d: d.find_element(By.ID, "place-banner").is_displayed() and d.find_elements(By.CSS_SELECTOR, '#map path[data-place="canteen"]'))
    screenshot(moderator, "places-desktop-map")
    # The place's lasting name lies under the notes' pins, so it never hides a count.
    panes = moderator.execute_script("""const label = document.querySelector('#map .place-label');
        return label && [Number(getComputedStyle(label.parentElement).zIndex), Number(getComputedStyle(document.querySelector('#map .leaflet-marker-pane')).zIndex)]""")
    assert panes and panes[0] < panes[1], panes
    assert axe_violations(moderator) == []
    assert requests.get(f"{server.url}/api/v1/posts", params={"place": "canteen"}, timeout=30).json()["posts"]

    # Back on the moderation page: the announcement and then the place are deleted (confirmed).
    moderator.get(server.url + "/moderate")
    moderator.find_element(By.ID, "tab-places").click()
    wait_for(moderator, lambda d: d.find_elements(By.CSS_SELECTOR, '#places-table tr[data-slug="canteen"]'), message="the places listed")
    moderator.find_element(By.CSS_SELECTOR, '#places-table tr[data-slug="canteen"] button:not(.danger)').click()
    wait_for(moderator, lambda d: message in d.find_element(By.ID, "announcement-list").text)
    moderator.find_element(By.CSS_SELECTOR, "#announcement-list button.danger").click()
    wait_for(moderator, lambda d: d.find_element(By.ID, "announcement-list").text == "No current announcements.")
    assert server.get("/api/v1/places/canteen/announcements").json()["announcements"] == []
    moderator.find_element(By.CSS_SELECTOR, '#places-table tr[data-slug="canteen"] button.danger').click()
    alert = wait_for(moderator, lambda d: EC.alert_is_present()(d), message="the confirmation")
    assert "Delete the place Canteen?" in alert.text
    alert.accept()
    wait_for(moderator, lambda d: "Deleted Canteen" in status(d))
    assert server.get("/api/v1/places/canteen").status_code == 404
    assert moderator.find_element(By.ID, "place-form-heading").text == "New place"
