"""A new person's first visit on a phone (issue 38): without location the map opens on the board's
busiest area (found from the public clusters) and says how to set a position; inside a place the
banner is one folded row that leaves the first screen to the board (it unfolds, and stays as left);
only the chosen language's catalog is fetched and nothing for a closed view; the bytes and the time
to the first pins on slow 4G with a 4× slower CPU are measured and written to test-output."""
import datetime
import json
import os
import random

import pytest
import requests
from selenium.webdriver.common.by import By

from conftest import OUTPUT
from pages import at_bearing, iso, js, offset, screenshot, serious, set_language, settle, start_board, status, stop_board, wait_for

BUSY = (25.0478, 121.5170)  # a station square: most of the board
QUIET = (24.15, 120.67)
CANTEEN = [[121.5165, 25.0474], [121.5176, 25.0474], [121.5176, 25.0483], [121.5165, 25.0483]]
PASSWORD = "first-visit-password"


def seed():
    random.seed(38)
    now = datetime.datetime.now(datetime.timezone.utc)
    rows = [{"lat": where[0], "lon": where[1], "message": f"Station note {number}", "tag": random.choice(["food", "lifestyle"]),
             "createdAt": iso(now - datetime.timedelta(minutes=number * 7))}
            for number, where in enumerate(at_bearing(BUSY, random.uniform(0, 360), random.uniform(0, 120)) for _ in range(300))]
    rows += [{"lat": QUIET[0] + random.uniform(-0.01, 0.01), "lon": QUIET[1] + random.uniform(-0.01, 0.01), "message": f"Quiet {n}",
              "tag": "food", "createdAt": iso(now - datetime.timedelta(days=n))} for n in range(20)]
    return rows


@pytest.fixture(scope="module")
def board():
    server, data_dir = start_board(seed(), moderator=("ana", PASSWORD))
    try:
        token = requests.post(server.url + "/api/v1/auth/token", json={"username": "ana", "password": PASSWORD}, timeout=30).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        put = requests.put(server.url + "/api/v1/moderation/places/canteen", json={
            "name": "North Canteen", "polygon": CANTEEN, "description": "Open 7 to 21. Trays back to the rack, please."}, headers=headers, timeout=30)
        assert put.status_code in (200, 201), put.text
        until = iso(datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=2))
        for text in ("Dumpling day on Friday", "The east door is closed for repairs"):
            made = requests.post(server.url + "/api/v1/moderation/places/canteen/announcements", json={"message": text, "until": until},
                                 headers=headers, timeout=30)
            assert made.status_code == 201, made.text
        yield server
    finally:
        stop_board(server, data_dir)


def deny_location(driver):
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        navigator.geolocation.getCurrentPosition = (ok, fail) => setTimeout(() => fail({code: 1, message: 'denied'}), 200);"""})


@pytest.mark.parametrize("language", ["en", "zh-Hant", "zh-Hans"])
def test_without_location_the_map_opens_on_the_busiest_area(board, browsers, language):
    driver = browsers.start("phone")
    deny_location(driver)
    driver.get(board.url + "/")
    if language != "en":
        set_language(driver, language)
    note = wait_for(driver, lambda d: d.find_element(By.ID, "map-busiest") if d.find_element(By.ID, "map-busiest").is_displayed() else None,
                    timeout=15, message="the busiest area said")
    zoom = js(driver, "return Number(new URLSearchParams(location.search).get('zoom'))")
    assert zoom >= 15, zoom
    # The station's notes are in view (not an empty world), as pins or stacks.
    wait_for(driver, lambda d: js(d, """return [...document.querySelectorAll('.leaflet-marker-icon.note-marker, .leaflet-marker-icon.stack')]
        .reduce((sum, m) => sum + (m.dataset.ids ? m.dataset.ids.split(',').length : 1), 0)""") >= 250, message="the station's notes in view")
    # Where it looks is where the notes are: the public clusters were asked, no moderator endpoint.
    asked = js(driver, "return performance.getEntriesByType('resource').map((e) => e.name)")
    assert any("/api/v1/posts/clusters" in name and "bbox=-180%2C-90%2C180%2C90" in name for name in asked), asked
    assert not any("/api/v1/moderation/" in name for name in asked)
    # It says how to set a position: the location box and the note on the map, in sight, in the page's language.
    assert driver.find_element(By.ID, "location-problem").is_displayed()
    assert note.rect["y"] + note.rect["height"] < driver.find_element(By.CSS_SELECTOR, ".tabbar").rect["y"], "the note is on the first screen"
    if language != "en":
        assert "Location is turned off" not in driver.find_element(By.ID, "location-problem-text").text
        assert "busiest" not in note.text
    if language == "en":
        assert "busiest part of the board" in note.text and "press and hold the map" in note.text
        assert "notes in view" in status(driver) and not status(driver).startswith("0 ")
    settle(0.5)
    assert serious(driver) == []
    screenshot(driver, f"first-visit-phone-no-location-{language}")


@pytest.mark.parametrize("language", ["en", "zh-Hant", "zh-Hans"])
def test_inside_a_place_the_banner_is_one_folded_row(board, browsers, language):
    inside = (25.0478, 121.5170)
    driver = browsers.start("phone", where=inside)
    driver.get(f"{board.url}/?view=list&radius=200")
    if language != "en":
        set_language(driver, language)
    banner = wait_for(driver, lambda d: d.find_element(By.ID, "place-banner") if d.find_element(By.ID, "place-banner").is_displayed() else None,
                      message="the place banner")
    wait_for(driver, lambda d: d.find_element(By.ID, "place-heading").text == "North Canteen")
    fold = driver.find_element(By.ID, "place-fold")
    wait_for(driver, lambda d: fold.is_displayed() and fold.get_attribute("aria-expanded") == "false", message="folded, with a way to unfold")
    assert banner.rect["height"] <= 100, banner.rect  # it took 329 px unfolded
    assert not driver.find_element(By.ID, "place-announcements").is_displayed()
    if language == "en":
        assert fold.text.startswith("2 announcements")
    # The first screen is the board's: several notes of the list in sight above the tab bar.
    tabbar = driver.find_element(By.CSS_SELECTOR, ".tabbar").rect
    seen = [item for item in driver.find_elements(By.CSS_SELECTOR, "#posts li[data-id]") if item.rect["y"] + 40 < tabbar["y"]]
    assert len(seen) >= 3, len(seen)
    assert serious(driver) == []
    screenshot(driver, f"place-phone-folded-{language}")
    fold.click()
    wait_for(driver, lambda d: d.find_element(By.ID, "place-announcements").is_displayed(), message="unfolded")
    assert fold.get_attribute("aria-expanded") == "true"
    assert "Dumpling day on Friday" in driver.find_element(By.ID, "place-announcements").text
    screenshot(driver, f"place-phone-unfolded-{language}")
    driver.refresh()
    wait_for(driver, lambda d: d.find_element(By.ID, "place-announcements").is_displayed(), message="it stays unfolded after a reload")
    fold = driver.find_element(By.ID, "place-fold")
    fold.click()
    # Looking at the past, today's announcements are not shown as the past's.
    yesterday = (datetime.date.today() - datetime.timedelta(days=1)).isoformat()
    driver.get(f"{board.url}/?view=list&radius=200&asOf={yesterday}T23:59:59.999Z")
    wait_for(driver, lambda d: d.find_element(By.ID, "place-heading").text == "North Canteen")
    settle(1)
    assert not driver.find_element(By.ID, "place-announcements").is_displayed()
    assert "announcement" not in driver.find_element(By.ID, "place-fold").text


def test_first_visit_weight_one_catalog_and_nothing_for_closed_views(board, browsers):
    """Slow 4G (150 ms, 1.6 Mbit/s) and a 4× slower CPU, a cold cache: the figures go to
    test-output/first-visit.json. The page's part is checked: one catalog, the light map feed,
    nothing fetched for the closed views."""
    driver = browsers.start("phone", where=BUSY, language="zh-TW", accept_languages="zh-TW,zh")
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8,
                                                                "uploadThroughput": 750_000 / 8})
    driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": 4})
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        new MutationObserver((changes, observer) => {
          if (document.querySelector('.leaflet-marker-icon')) { window.__firstPins = performance.now(); observer.disconnect(); }
        }).observe(document, {subtree: true, childList: true});"""})
    try:
        driver.get(f"{board.url}/?view=map&lat={BUSY[0]}&lon={BUSY[1]}&zoom=16")
        first_pins = wait_for(driver, lambda d: js(d, "return window.__firstPins || null"), timeout=60, message="first pins")
        settle(3)
        entries = js(driver, """return [performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')]
            .map((e) => ({name: e.name, size: e.transferSize, body: e.decodedBodySize}))""")
    finally:
        driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": 1})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    names = [entry["name"] for entry in entries]
    catalogs = [name for name in names if "/i18n/" in name and name.endswith(".js")]
    assert catalogs == [board.url + "/i18n/zh-Hant.js"], catalogs
    assert not any("/api/v1/posts/nearby" in name for name in names), "look-around's or the list's notes fetched for a closed view"
    assert not any("/api/v1/me/" in name for name in names)
    # Nor the code of the closed views: look around's and My notes' come when they open.
    assert not [name for name in names if name.endswith(("/look.js", "/walk.js", "/mine.js", "/reply-push.js"))]
    feeds = [name for name in names if "/api/v1/posts?" in name]
    assert feeds and all("fields=" in name for name in feeds), feeds
    transferred = sum(entry["size"] for entry in entries)
    figures = {"firstPinsMs": round(first_pins), "transferredBytes": transferred, "requests": len(entries),
               "decodedBytes": sum(entry["body"] for entry in entries),
               "largest": sorted(((entry["size"], entry["name"].replace(board.url, "")) for entry in entries), reverse=True)[:8]}
    os.makedirs(OUTPUT, exist_ok=True)
    with open(os.path.join(OUTPUT, "first-visit.json"), "w") as handle:
        json.dump(figures, handle, indent=1)
    print("first visit:", json.dumps(figures))
    assert transferred <= 150_000, figures
    # What the page alone holds to without the server compressing: no answer of the board asked twice.
    asked = [name for name in names if "/api/" in name]
    assert len(asked) == len(set(asked)), [name for name in asked if asked.count(name) > 1]
