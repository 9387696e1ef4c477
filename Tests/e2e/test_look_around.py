"""Look around, redone (issue 19): 100 notes at one spot with varied headings. The notes stand
across the view by bearing; turning by 90° (the compass, through the driver's device-orientation
override) changes which cards show exactly as the bearings and the posters' headings say; at
most ten cards, none overlapping (bounding boxes from the driver), the nearest largest; a tap
opens the note with its distance and time; Pause stops the drift; screen readers hear the count."""
import datetime
import random

import pytest
import requests
from selenium.webdriver.common.by import By

from pages import at_bearing, iso, js, overlaps, screenshot, serious, serve_board, set_language, settle, status, wait_for
from geo_oracle import difference

SPOT = (22.4196, 114.2068)
FOV = 60
TOLERANCE = 45


def seed_rows():
    random.seed(19)
    created = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=2)
    rows = []
    for number in range(100):
        bearing = (number * 3.6 + 1.7) % 360
        where = at_bearing(SPOT, bearing, 12 + (number * 37) % 80)
        heading = None if number % 5 == 0 else random.choice([0, 30, 90, 135, 180, 225, 270, 315])
        row = {"lat": where[0], "lon": where[1], "message": f"Note {number} at {bearing:.0f}°", "tag": "lifestyle",
               "createdAt": iso(created + datetime.timedelta(seconds=number))}
        if heading is not None:
            row["heading"] = heading
        rows.append(row)
    return rows


@pytest.fixture(scope="module")
def board():
    yield from serve_board(seed_rows())


def around(server):
    posts = requests.get(server.url + "/api/v1/posts/nearby", params={"lat": SPOT[0], "lon": SPOT[1], "radius": 200, "limit": 500},
                         timeout=30).json()["posts"]
    assert len(posts) == 100
    return posts


def signed(facing, bearing):
    return (bearing - facing + 540) % 360 - 180


def candidates(posts, facing, mode="facing"):
    """The notes the view may show facing `facing`, in the page's rank: in the field of view; in the
    "facing my way" mode only those whose poster faced within 45° (or recorded no direction);
    posters who faced your way first, then those without a direction, then the rest, nearest first."""
    def rank(post):
        if post["heading"] is None:
            return 1
        return 0 if difference(post["heading"], facing) <= TOLERANCE else 2
    inside = [post for post in posts if difference(post["bearing"], facing) <= FOV / 2]
    if mode == "facing":
        inside = [post for post in inside if rank(post) < 2]
    return sorted(inside, key=lambda post: (rank(post), post["distance"], post["id"]))


def shown(driver):
    return js(driver, """return [...document.querySelectorAll('#look-notes li[data-id]')].map((item) => {
        const box = item.getBoundingClientRect();
        return {id: Number(item.dataset.id), x: box.x, y: box.y, width: box.width, height: box.height,
                tier: [...item.classList].find((name) => name.startsWith('tier-'))};
    });""")


def stage_box(driver):
    return js(driver, "const box = document.getElementById('look-stage').getBoundingClientRect(); return {x: box.x, y: box.y, width: box.width, height: box.height};")


def check_view(driver, posts, facing, mode="facing"):
    """The cards shown facing `facing`: the best ranked candidates, inside the stage, never overlapping,
    left of the middle when the bearing is left of straight ahead, the nearest the widest."""
    expected = candidates(posts, facing, mode)
    by_id = {post["id"]: post for post in posts}
    cards = wait_for(driver, lambda d: (lambda found: found if found and {c["id"] for c in found} <= {p["id"] for p in expected} else None)(shown(d)),
                     message=f"cards facing {facing}")
    settle(0.6)  # the cards glide to their places
    cards = shown(driver)
    ids = [card["id"] for card in cards]
    assert len(ids) == len(set(ids))
    assert 1 <= len(cards) <= 10
    assert len(cards) >= min(6, len(expected)), (len(cards), len(expected))
    assert set(ids) <= {post["id"] for post in expected}
    assert {post["id"] for post in expected[:3]} <= set(ids), "the best ranked notes always show"
    for card in cards:
        post = by_id[card["id"]]
        assert difference(post["bearing"], facing) <= FOV / 2
        if mode == "facing":
            assert post["heading"] is None or difference(post["heading"], facing) <= TOLERANCE
    assert overlaps(cards) == [], overlaps(cards)
    stage = stage_box(driver)
    middle = stage["x"] + stage["width"] / 2
    for card in cards:
        assert stage["x"] <= card["x"] and card["x"] + card["width"] <= stage["x"] + stage["width"] + 0.5
        assert stage["y"] <= card["y"] and card["y"] + card["height"] <= stage["y"] + stage["height"] + 0.5
        offset = signed(facing, by_id[card["id"]]["bearing"])
        centre = card["x"] + card["width"] / 2
        if abs(offset) > 3:
            assert (centre < middle) == (offset < 0), (card["id"], offset, centre, middle)
    nearest = min(cards, key=lambda card: by_id[card["id"]]["distance"])
    assert nearest["width"] >= max(card["width"] for card in cards) - 0.5, "the nearest card is the largest"
    return ids


def turn(driver, heading):
    """The phone turns: the compass reads `heading` (alpha counts counter-clockwise from north)."""
    driver.execute_cdp_cmd("DeviceOrientation.setDeviceOrientationOverride", {"alpha": (360 - heading) % 360, "beta": 90, "gamma": 0})


def test_turning_by_90_degrees_shows_the_notes_the_bearings_say(board, browsers):
    posts = around(board)
    driver = browsers.start("phone", where=SPOT)
    turn(driver, 0)
    driver.get(f"{board.url}/?view=look&radius=200&facing=0")
    north = check_view(driver, posts, 0)
    # Full screen on a phone: the dial on top, the stage filling the rest, the tab bar below.
    dial = driver.find_element(By.CSS_SELECTOR, ".dial").rect
    stage = stage_box(driver)
    assert dial["y"] < stage["y"] and stage["height"] >= 400, (dial, stage)
    # The which-notes choice and Pause share one row: a second row would take the cards' room.
    choice, pause = driver.find_element(By.ID, "look-mode").rect, driver.find_element(By.ID, "look-pause").rect
    assert abs(choice["y"] + choice["height"] / 2 - (pause["y"] + pause["height"] / 2)) < 4, (choice, pause)
    assert not driver.find_element(By.ID, "filters").is_displayed() or driver.find_element(By.ID, "view-look").rect["y"] <= 1
    # Screen readers hear the count once, not every card: the stage is not a live region.
    assert driver.find_element(By.ID, "look-stage").get_attribute("aria-live") is None
    wait_for(driver, lambda d: "in front of you" in status(d), message="the count announced")
    assert "Note " not in status(driver)
    screenshot(driver, "look-phone-north")

    compass = driver.find_element(By.ID, "compass")
    assert compass.text == "Use the compass" and "on" not in compass.get_attribute("class").split()
    compass.click()
    turn(driver, 90)
    wait_for(driver, lambda d: "90°" in d.find_element(By.ID, "facing-readout").text, message="the compass turned east")
    # The button says the compass is on, and looks pressed.
    assert compass.text == "Compass on" and "on" in compass.get_attribute("class").split()
    east = check_view(driver, posts, 90)
    assert not set(north) & set(east), "no note shows both facing north and facing east"
    assert "facing=90" in driver.current_url
    screenshot(driver, "look-phone-east")

    # A second tap turns the compass off: the phone turning no longer turns the view.
    compass.click()
    assert compass.text == "Use the compass" and "on" not in compass.get_attribute("class").split()
    wait_for(driver, lambda d: "Compass off" in status(d), message="compass off said")
    assert not driver.find_element(By.ID, "compass-note").is_displayed()  # the button says it; the cards keep their room
    turn(driver, 200)
    settle(0.6)
    assert "90°" in driver.find_element(By.ID, "facing-readout").text
    compass.click()
    turn(driver, 90)
    wait_for(driver, lambda d: compass.text == "Compass on", message="the compass on again")

    # "Any way" adds the notes left facing another way, after those that faced your way.
    assert driver.find_element(By.ID, "look-mode-label").text == "Posted facing"
    driver.find_element(By.CSS_SELECTOR, '#look-mode [data-mode="all"]').click()
    check_view(driver, posts, 90, mode="all")
    driver.find_element(By.CSS_SELECTOR, '#look-mode [data-mode="facing"]').click()

    # Pause stops the drift.
    driver.find_element(By.ID, "look-pause").click()
    assert driver.find_element(By.ID, "look-pause").get_attribute("aria-pressed") == "true"
    assert js(driver, "return getComputedStyle(document.querySelector('#look-notes li')).animationPlayState") == "paused"

    # A tap opens the note with its distance and time.
    first = driver.find_element(By.CSS_SELECTOR, "#look-notes li .card-open")
    message = first.find_element(By.CSS_SELECTOR, ".message").text
    first.click()
    wait_for(driver, lambda d: d.find_element(By.ID, "thread").get_attribute("open") is not None, message="the note opens")
    note = driver.find_element(By.ID, "thread-note").text
    assert message in note and " m, " in note and "ago" in note, note
    assert "#/note/" in driver.current_url
    violations = serious(driver)
    assert violations == [], violations
    driver.find_element(By.ID, "thread-close").click()
    violations = serious(driver)
    assert violations == [], violations


def test_a_device_without_a_compass_is_told_so_in_the_view(board, browsers):
    driver = browsers.start("phone", where=SPOT)
    driver.get(f"{board.url}/?view=look&radius=200&facing=0")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#look-notes li"), message="the notes in front")
    js(driver, "delete window.DeviceOrientationEvent")
    driver.find_element(By.ID, "compass").click()
    # Full screen on a phone, the status line is out of sight: the view itself says why nothing turns.
    note = driver.find_element(By.ID, "compass-note")
    wait_for(driver, lambda d: note.is_displayed(), message="the missing compass said in the view")
    assert note.text == "This device has no compass: use the dial."
    assert driver.find_element(By.ID, "compass").text == "Use the compass"
    set_language(driver, "zh-Hans")
    assert note.text == "这个设备没有指南针：请使用转盘。"


def test_on_a_desktop_the_dial_turns_the_view_and_cards_stay_apart(board, browsers):
    posts = around(board)
    driver = browsers.start("desktop", where=SPOT)
    driver.get(f"{board.url}/?view=look&radius=200&facing=180&lat={SPOT[0]}&lon={SPOT[1]}")
    south = check_view(driver, posts, 180)
    screenshot(driver, "look-desktop-south")
    dial = driver.find_element(By.ID, "facing")
    js(driver, "arguments[0].value = 270; arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", dial)
    west = check_view(driver, posts, 270)
    assert not set(south) & set(west)
    # The dial speaks its direction in words.
    assert dial.get_attribute("aria-valuetext") == "270° west"
    violations = serious(driver)
    assert violations == [], violations
