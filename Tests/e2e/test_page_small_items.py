"""The small items of issue 38 (point 8), on a phone: "to your right →" keeps the right edge; replies
say how long ago, as notes do; the post form names the place instead of coordinates; looking at the
past, the post form says at once that a note goes on the board of now; Leaflet's zoom buttons speak
the page's language, on the public map and the moderators' maps."""
import datetime

import pytest
import requests
from selenium.webdriver.common.by import By

from pages import at_bearing, iso, js, screenshot, serious, set_language, settle, start_board, stop_board, wait_for

HERE = (35.0116, 135.7681)
HALL = [[135.7675, 35.0111], [135.7687, 35.0111], [135.7687, 35.0121], [135.7675, 35.0121]]
PASSWORD = "small-items-password"


@pytest.fixture(scope="module")
def board():
    now = datetime.datetime.now(datetime.timezone.utc)
    # Notes to the right (east) of a viewer facing north, none to the left.
    rows = [{"lat": at_bearing(HERE, 70 + n * 5, 30)[0], "lon": at_bearing(HERE, 70 + n * 5, 30)[1], "message": f"East note {n}",
             "tag": "food", "createdAt": iso(now - datetime.timedelta(hours=n + 1))} for n in range(5)]
    server, data_dir = start_board(rows, moderator=("yu", PASSWORD))
    try:
        token = requests.post(server.url + "/api/v1/auth/token", json={"username": "yu", "password": PASSWORD}, timeout=30).json()["token"]
        put = requests.put(server.url + "/api/v1/moderation/places/hall", json={"name": "Lecture Hall 3", "polygon": HALL},
                           headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert put.status_code in (200, 201), put.text
        yield server
    finally:
        stop_board(server, data_dir)


def test_the_right_hint_keeps_the_right_edge(board, browsers):
    driver = browsers.start("phone", where=HERE)
    driver.get(f"{board.url}/?view=look&lat={HERE[0]}&lon={HERE[1]}&radius=100&facing=0")
    right = wait_for(driver, lambda d: d.find_element(By.ID, "turn-right") if d.find_element(By.ID, "turn-right").is_displayed() else None,
                     message="notes to the right said")
    assert not driver.find_element(By.ID, "turn-left").is_displayed()
    stage = driver.find_element(By.ID, "look-stage").rect
    box = right.rect
    assert box["x"] + box["width"] >= stage["x"] + stage["width"] - 12, (box, stage)
    assert box["x"] > stage["x"] + stage["width"] / 3, "not wrapped to the left edge"
    assert right.text.split("\n")[0].endswith("→") and right.tag_name == "button" and box["height"] >= 44
    assert "notes to your right" in right.accessible_name


def test_replies_say_how_long_ago(board, browsers):
    post = requests.get(board.url + "/api/v1/posts", params={"limit": 1}, timeout=30).json()["posts"][0]
    made = requests.post(f"{board.url}/api/v1/posts/{post['id']}/replies", json={"message": "Still there?"},
                         headers={"X-Device-Key": "someone-0123456789abc"}, timeout=30)
    assert made.status_code == 201, made.text
    driver = browsers.start("phone", where=HERE)
    driver.get(f"{board.url}/?view=list#/note/{post['id']}")
    reply = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#replies .reply"), message="the reply")[0]
    time = reply.find_element(By.CSS_SELECTOR, "time")
    assert time.text in ("now", "just now", "1 minute ago", "this minute"), time.text
    assert time.get_attribute("title") and time.get_attribute("datetime") == made.json()["createdAt"]


@pytest.mark.parametrize("language", ["en", "zh-Hant", "zh-Hans"])
def test_the_post_form_names_the_place_and_says_at_once_when_looking_at_the_past(board, browsers, language):
    driver = browsers.start("phone", where=HERE)
    driver.get(f"{board.url}/?view=post")
    if language != "en":
        set_language(driver, language)
    where = driver.find_element(By.ID, "compose-where")
    wait_for(driver, lambda d: "Lecture Hall 3" in where.text, message="the place named")
    assert "35.01" not in where.text and "135.76" not in where.text, where.text
    notice = driver.find_element(By.ID, "compose-past")
    assert not notice.is_displayed()
    # Choosing a past day while the form is open: the notice is there at once, no reload.
    yesterday = (datetime.date.today() - datetime.timedelta(days=1)).isoformat()
    driver.find_element(By.ID, "tab-list").click()
    driver.find_element(By.ID, "filters-toggle").click()
    js(driver, "const i = document.getElementById('as-of'); i.value = arguments[0]; i.dispatchEvent(new Event('change', {bubbles: true}))", yesterday)
    wait_for(driver, lambda d: "asOf=" in d.current_url, message="the past chosen")
    driver.find_element(By.ID, "tab-post").click()
    wait_for(driver, lambda d: notice.is_displayed() and notice.text, message="the past said on the form")
    assert serious(driver) == []
    screenshot(driver, f"post-phone-place-past-{language}")


@pytest.mark.parametrize("language", ["zh-Hant", "zh-Hans"])
def test_leaflets_zoom_buttons_speak_the_pages_language(board, browsers, language):
    driver = browsers.start("phone", where=HERE)
    driver.get(f"{board.url}/?view=map")
    set_language(driver, language)
    zoom_in = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#map .leaflet-control-zoom-in"), message="the zoom buttons")[0]
    assert zoom_in.get_attribute("title") == "放大" and zoom_in.get_attribute("aria-label") == "放大"
    zoom_out = driver.find_element(By.CSS_SELECTOR, "#map .leaflet-control-zoom-out")
    assert zoom_out.get_attribute("title") in ("縮小", "缩小")
    # Back in English, and on the moderators' page too.
    set_language(driver, "en")
    assert zoom_in.get_attribute("title") == "Zoom in"
    desk = browsers.start("desktop")
    desk.get(board.url + "/moderate")
    set_language(desk, language)
    desk.find_element(By.ID, "username").send_keys("yu")
    desk.find_element(By.ID, "password").send_keys(PASSWORD)
    desk.find_element(By.CSS_SELECTOR, "#login button[type=submit]").click()
    wait_for(desk, lambda d: d.find_elements(By.CSS_SELECTOR, ".leaflet-control-zoom-in"), timeout=15, message="a moderators' map")
    titles = js(desk, "return [...document.querySelectorAll('.leaflet-control-zoom-in, .leaflet-control-zoom-out')].map((b) => b.title)")
    assert titles and not any(title in ("Zoom in", "Zoom out") for title in titles), titles
    english = js(desk, """const seen = [];
        const walk = (node) => { for (const child of node.childNodes) {
          if (child.nodeType === 3 && /[A-Za-z]{4,}/.test(child.textContent) && child.parentElement.offsetParent !== null
              && !child.parentElement.closest('.message, .leaflet-control-attribution, [lang=en], code, option, time')) seen.push(child.textContent.trim());
          else if (child.nodeType === 1) walk(child); } };
        walk(document.body);
        const labels = [...document.querySelectorAll('[aria-label], [title], [placeholder]')].filter((e) => e.offsetParent !== null)
          .flatMap((e) => ['aria-label', 'title', 'placeholder'].map((a) => e.getAttribute(a)).filter((v) => v && /^[A-Za-z ,.:'’]{6,}$/.test(v)));
        return [...seen, ...labels];""")
    # What moderators and posters wrote (a tag, a place's slug) and the board's name stay as written.
    data = {"food", "hall", "NoticeBoard 管理"}
    english = [text for text in english if text not in data and not text.endswith(" hall")]
    assert english == [], english
