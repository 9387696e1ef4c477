"""Keyboard only (issue 19): post a note with a chosen tag (Tab from the tag chips into the custom
tag box no longer changes the choice), open a cluster on the map and a note in it with Enter,
and report the note — every step with the keys alone, each focused control showing a ring."""
import datetime
import re
import time

import pytest
import requests
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from pages import iso, js, offset, screenshot, serious, start_board, status, stop_board, wait_for

HERE = (51.5072, -0.1276)
PASSWORD = "keyboard-password-1"


@pytest.fixture(scope="module")
def board():
    created = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1)
    rows = [{"lat": point[0], "lon": point[1], "message": f"Keyboard note {number}", "tag": "food", "createdAt": iso(created)}
            for number, point in enumerate(offset(HERE, 10 * n, 8 * (n % 3)) for n in range(6))]
    server, data_dir = start_board(rows, moderator=("keys", PASSWORD))
    try:
        yield server
    finally:
        stop_board(server, data_dir)


def focused(driver):
    return js(driver, "const e = document.activeElement; return e ? {id: e.id, tag: e.tagName.toLowerCase(), cls: String(e.className?.baseVal ?? e.className), value: e.value ?? null, text: (e.textContent || '').trim().slice(0, 40)} : null")


def press(driver, *keys):
    chain = ActionChains(driver)
    for key in keys:
        chain.send_keys(key)
    chain.perform()


def tab_to(driver, predicate, limit=120, backwards=False):
    """Presses Tab (or Shift+Tab) until the focused element satisfies `predicate`."""
    for _ in range(limit):
        if backwards:
            ActionChains(driver).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        else:
            press(driver, Keys.TAB)
        element = focused(driver)
        if element and predicate(element):
            return element
    raise AssertionError(f"never reached by Tab; last focused: {focused(driver)}")


def ring_visible(driver):
    """The focused element draws a focus ring (an outline of at least 2 px, or a box-shadow)."""
    return js(driver, """const style = getComputedStyle(document.activeElement);
        return (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2) || style.boxShadow !== 'none';""")


def token(board):
    return requests.post(board.url + "/api/v1/auth/token", json={"username": "keys", "password": PASSWORD}, timeout=30).json()["token"]


def test_post_a_note_with_a_chosen_tag_by_keyboard(board, browsers):
    driver = browsers.start("desktop", where=HERE)
    driver.get(f"{board.url}/?view=post&lat={HERE[0]}&lon={HERE[1]}")
    wait_for(driver, lambda d: "set by hand" in d.find_element(By.ID, "compose-where").text or "link" in d.find_element(By.ID, "compose-where").text)
    # A desktop (a fine pointer) is told the keys; a touch phone is not (test_page_phone).
    assert js(driver, "return [...document.querySelectorAll('.keys-hint')].map((e) => getComputedStyle(e).display)") == ["block", "inline"]
    tab_to(driver, lambda e: e["id"] == "message")
    assert ring_visible(driver)
    press(driver, "Typed with the keys alone")
    first = tab_to(driver, lambda e: e["tag"] == "input" and e["value"] in ("food", "fashion", "lifestyle", "entertainment", "custom"))
    assert first["value"] == "food"
    assert ring_visible(driver)
    press(driver, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)  # food → fashion → lifestyle
    assert js(driver, "return document.querySelector('input[name=tag]:checked').value") == "lifestyle"
    tab_to(driver, lambda e: e["id"] == "custom-tag", limit=3)
    # Passing through the custom tag box keeps the chosen chip.
    assert js(driver, "return document.querySelector('input[name=tag]:checked').value") == "lifestyle"
    tab_to(driver, lambda e: e["id"] == "post-button", limit=12)
    assert ring_visible(driver)
    screenshot(driver, "keyboard-post")
    press(driver, Keys.ENTER)
    wait_for(driver, lambda d: "Posted your lifestyle note" in status(d), message="posted")
    # The focus stays by the button, on the words saying the note went out (not at the page's top).
    assert focused(driver)["id"] == "compose-done" and "Posted your lifestyle note" in focused(driver)["text"]
    posts = requests.get(board.url + "/api/v1/posts", params={"tag": "lifestyle"}, timeout=30).json()["posts"]
    assert [post["message"] for post in posts] == ["Typed with the keys alone"]
    assert posts[0]["heading"] is None  # no compass, so no direction recorded

    # Typing in the custom tag box chooses "other".
    tab_to(driver, lambda e: e["id"] == "message", backwards=True)
    press(driver, "A custom one")
    tab_to(driver, lambda e: e["id"] == "custom-tag")
    press(driver, "Keyboards")
    assert js(driver, "return document.querySelector('input[name=tag]:checked').value") == "custom"
    # Enter in the one-line tag box keeps the half-written note: nothing is posted.
    press(driver, Keys.ENTER)
    time.sleep(1)  # a post the Enter made would be stored by now
    assert "keyboards" not in [post["tag"] for post in requests.get(board.url + "/api/v1/posts", timeout=30).json()["posts"]]
    assert focused(driver)["id"] == "custom-tag" and driver.find_element(By.ID, "message").get_attribute("value") == "A custom one"
    tab_to(driver, lambda e: e["id"] == "post-button", limit=12)
    press(driver, Keys.ENTER)
    wait_for(driver, lambda d: "Posted your keyboards note" in status(d), message="posted with the custom tag")


def test_open_a_cluster_and_a_note_then_report_it_by_keyboard(board, browsers):
    driver = browsers.start("desktop", where=HERE)
    driver.get(f"{board.url}/?view=map&lat={HERE[0]}&lon={HERE[1]}&zoom=12")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".cluster"), message="a cluster")
    cluster = tab_to(driver, lambda e: "cluster" in e["cls"])
    assert ring_visible(driver)
    assert js(driver, "return document.activeElement.getAttribute('role')") == "button"
    assert "zoom in" in js(driver, "return document.activeElement.getAttribute('aria-label')")
    screenshot(driver, "keyboard-cluster-focused")
    press(driver, Keys.ENTER)
    wait_for(driver, lambda d: "zoom=15" in d.current_url, message="zoomed in")
    # The focus lands on the nearest note or stack where the cluster was; a stack too opens by
    # keyboard, zooming in (the focus following) until a note, or its list at the closest zoom.
    wait_for(driver, lambda d: re.search(r"note-marker|stack", (focused(d) or {}).get("cls", "")), message="a note or stack focused after the zoom")
    for _ in range(4):
        label = js(driver, "return document.activeElement.getAttribute('aria-label')")
        if "note-marker" in focused(driver)["cls"] or "show" in label:
            break
        zoom = int(re.search(r"zoom=(\d+)", driver.current_url).group(1))
        press(driver, Keys.ENTER)
        wait_for(driver, lambda d: int(re.search(r"zoom=(\d+)", d.current_url).group(1)) > zoom
                 and re.search(r"note-marker|stack", (focused(d) or {}).get("cls", "")), message="the stack opened by keyboard")
    assert ring_visible(driver)
    press(driver, Keys.SPACE)
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".leaflet-popup-content .note-actions"), message="the popup")
    wait_for(driver, lambda d: (focused(d) or {}).get("cls", "").startswith("like"), message="the focus in the popup")
    screenshot(driver, "keyboard-note-popup")
    tab_to(driver, lambda e: "replies" in e["cls"], limit=4)
    press(driver, Keys.ENTER)
    wait_for(driver, lambda d: d.find_element(By.ID, "thread").get_attribute("open") is not None, message="the note opens")
    note_id = int(driver.current_url.rsplit("/", 1)[1])
    tab_to(driver, lambda e: e["id"] == "report-note")
    assert ring_visible(driver)
    press(driver, Keys.ENTER)
    wait_for(driver, lambda d: d.find_element(By.ID, "report-form").is_displayed())
    assert focused(driver)["value"] == "spam"
    press(driver, Keys.ARROW_DOWN)
    assert js(driver, "return document.querySelector('input[name=reason]:checked').value") == "abuse"
    tab_to(driver, lambda e: e["id"] == "report-detail", limit=3)
    press(driver, "Rude words about a person")
    tab_to(driver, lambda e: e["id"] == "report-send", limit=3)
    screenshot(driver, "keyboard-report")
    press(driver, Keys.ENTER)
    wait_for(driver, lambda d: d.find_element(By.ID, "share-status").text.startswith("Thank you"), message="reported")
    reported = requests.get(board.url + "/api/v1/moderation/posts", params={"reported": "true"},
                            headers={"Authorization": f"Bearer {token(board)}"}, timeout=30).json()["posts"]
    assert [(post["id"], post["reportCount"]) for post in reported] == [(note_id, 1)]
    violations = serious(driver)
    assert violations == [], violations
    press(driver, Keys.ESCAPE)
    wait_for(driver, lambda d: d.find_element(By.ID, "thread").get_attribute("open") is None)
    # The dialog's close event comes a moment after it closed: the address loses the note's link then.
    wait_for(driver, lambda d: "#/note/" not in d.current_url, timeout=3, message="the note's link left the address")


def test_tabs_and_filters_work_with_the_keys(board, browsers):
    driver = browsers.start("phone", where=HERE)
    driver.get(f"{board.url}/?view=list&lat={HERE[0]}&lon={HERE[1]}")
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#posts li[data-id]")) >= 6)
    tab = tab_to(driver, lambda e: e["id"].startswith("tab-"))
    assert tab["id"] == "tab-list" and ring_visible(driver)
    press(driver, Keys.ARROW_RIGHT)
    wait_for(driver, lambda d: "view=look" in d.current_url)
    press(driver, Keys.HOME)
    wait_for(driver, lambda d: "view=map" in d.current_url)
    # The filters open from their button; Escape folds them again.
    toggle = tab_to(driver, lambda e: e["id"] == "filters-toggle")
    assert toggle
    press(driver, Keys.ENTER)
    assert driver.find_element(By.ID, "filter-panel").is_displayed()
    tab_to(driver, lambda e: e["text"].startswith("This week"))
    press(driver, Keys.ENTER)
    wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, '[data-preset="week"]').get_attribute("aria-pressed") == "true")
    press(driver, Keys.ESCAPE)
    assert not driver.find_element(By.ID, "filter-panel").is_displayed()
    assert focused(driver)["id"] == "filters-toggle"
