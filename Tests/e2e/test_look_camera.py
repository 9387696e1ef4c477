"""Look around through the camera (issue 38), with Chromium's fake camera: the rear camera is asked
for (facingMode "environment") and plays behind the notes, which stand where they were left; the
arrows turn the view; the time slider under it keeps the notes of the chosen span; turning the
phone to landscape opens it; a refused camera keeps the dial view and says so; in three languages,
axe-core finds nothing serious."""
import datetime

import pytest
from selenium.webdriver.common.by import By

from pages import PHONE, at_bearing, iso, js, screenshot, serious, serve_board, set_language, settle, status, wait_for

SPOT = (48.1374, 11.5755)
FAKE_CAMERA = ("--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream")


def seed():
    now = datetime.datetime.now(datetime.timezone.utc)
    rows = []
    for number in range(24):
        bearing = number * 15
        where = at_bearing(SPOT, bearing, 20 + number)
        age = datetime.timedelta(minutes=20) if number % 2 == 0 else datetime.timedelta(days=20)
        rows.append({"lat": where[0], "lon": where[1], "message": f"{'Fresh' if number % 2 == 0 else 'Old'} note at {bearing}°",
                     "tag": "lifestyle", "createdAt": iso(now - age)})
    return rows


@pytest.fixture(scope="module")
def board():
    yield from serve_board(seed())


def cards(driver):
    return js(driver, "return [...document.querySelectorAll('#look-notes .look-card')].map((c) => c.textContent)")


@pytest.mark.parametrize("language", ["en", "zh-Hant", "zh-Hans"])
def test_the_camera_plays_behind_the_notes_the_arrows_turn_and_the_slider_keeps_a_span(board, browsers, language):
    driver = browsers.start("phone", where=SPOT, arguments=FAKE_CAMERA)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        window.__asked = [];
        const original = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
        navigator.mediaDevices.getUserMedia = (constraints) => { window.__asked.push(constraints); return original(constraints); };"""})
    driver.get(f"{board.url}/?view=look&lat={SPOT[0]}&lon={SPOT[1]}&radius=200&facing=0")
    if language != "en":
        set_language(driver, language)
    wait_for(driver, lambda d: len(cards(d)) > 0, message="cards in the dial view")
    camera = driver.find_element(By.ID, "look-camera")
    assert camera.get_attribute("aria-pressed") == "false"
    camera.click()
    wait_for(driver, lambda d: js(d, "const v = document.getElementById('look-video'); return Boolean(v && v.readyState >= 2 && v.videoWidth > 0)"),
             timeout=15, message="the fake camera plays")
    asked = js(driver, "return window.__asked")
    assert asked and asked[0]["video"]["facingMode"] == {"ideal": "environment"} and asked[0]["audio"] is False
    assert camera.get_attribute("aria-pressed") == "true"
    # The picture fills the stage, behind the cards (which are still placed by bearing).
    video, stage = driver.find_element(By.ID, "look-video").rect, driver.find_element(By.ID, "look-stage").rect
    assert abs(video["width"] - stage["width"]) < 2 and abs(video["height"] - stage["height"]) < 2
    assert cards(driver)
    card = driver.find_element(By.CSS_SELECTOR, "#look-notes .look-card .card-open")
    assert js(driver, "const b = arguments[0].getBoundingClientRect(); const e = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2);"
                      " return arguments[0].contains(e)", card), "a card is on top of the picture, and can be pressed"
    settle(0.5)
    assert serious(driver) == []
    screenshot(driver, f"look-camera-phone-{language}")
    # The arrows turn the view by half its width.
    right = wait_for(driver, lambda d: d.find_element(By.ID, "turn-right") if d.find_element(By.ID, "turn-right").is_displayed() else None,
                     message="an arrow to the right")
    right.click()
    wait_for(driver, lambda d: js(d, "return document.getElementById('facing').value") == "30", message="turned right by 30°")
    driver.find_element(By.ID, "turn-left").click()
    driver.find_element(By.ID, "turn-left").click()
    wait_for(driver, lambda d: js(d, "return document.getElementById('facing').value") == "330", message="turned left twice")
    # The time slider: the last day keeps the fresh notes only.
    js(driver, "const s = document.getElementById('look-since'); s.value = '1'; s.dispatchEvent(new Event('input', {bubbles: true}))")
    wait_for(driver, lambda d: "from=" in d.current_url, message="the span in the address")
    wait_for(driver, lambda d: cards(d) and all("Fresh" in text for text in cards(d)), message="only the last day's notes")
    assert driver.find_element(By.ID, "look-since-readout").text
    # Leaving the view lets the camera go.
    driver.find_element(By.ID, "tab-map").click()
    wait_for(driver, lambda d: js(d, "return document.getElementById('look-video') === null"), message="the camera stopped")


def test_landscape_opens_the_camera_view(board, browsers):
    driver = browsers.start("phone", where=SPOT, arguments=FAKE_CAMERA)
    driver.get(f"{board.url}/?view=map&lat={SPOT[0]}&lon={SPOT[1]}&radius=200")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".leaflet-marker-icon"), message="the map")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**PHONE, "width": PHONE["height"], "height": PHONE["width"],
                                                                   "screenOrientation": {"type": "landscapePrimary", "angle": 90}})
    wait_for(driver, lambda d: "view=look" in d.current_url, message="look around opened")
    wait_for(driver, lambda d: js(d, "const v = document.getElementById('look-video'); return Boolean(v && v.videoWidth > 0)"), timeout=15,
             message="with the camera")
    stage = driver.find_element(By.ID, "look-stage").rect
    assert stage["width"] >= 500 and stage["height"] >= 250, stage  # most of the screen, the controls beside it
    settle(0.5)
    assert serious(driver) == []
    screenshot(driver, "look-camera-phone-landscape")


def test_a_refused_camera_keeps_the_dial_view_and_says_so(board, browsers):
    driver = browsers.start("phone", where=SPOT)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('refused', 'NotAllowedError'));"""})
    driver.get(f"{board.url}/?view=look&lat={SPOT[0]}&lon={SPOT[1]}&radius=200&facing=0")
    wait_for(driver, lambda d: len(cards(d)) > 0 and "in front of you" in status(d), message="cards, and their count said")
    # Everything the status line says from here, as a screen reader hears it: the view's count
    # may be said again right after the refusal.
    js(driver, """window.__said = []; new MutationObserver(() => window.__said.push(document.getElementById('status').textContent))
        .observe(document.getElementById('status'), {subtree: true, childList: true, characterData: true});""")
    driver.find_element(By.ID, "look-camera").click()
    note = wait_for(driver, lambda d: d.find_element(By.ID, "camera-note") if d.find_element(By.ID, "camera-note").is_displayed() else None,
                    message="the refusal said in the view")
    assert note.text == "The camera was not allowed: the dial view stays."
    assert js(driver, "return document.getElementById('look-video')") is None and cards(driver)
    assert driver.find_element(By.ID, "look-camera").get_attribute("aria-pressed") == "false"
    said = js(driver, "return window.__said")
    assert any("not allowed" in text for text in said), said
