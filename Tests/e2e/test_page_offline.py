"""An installable page that works offline (issue 38), on a phone: the web-app manifest and its icons;
the service worker caches the page and the last board seen, so a reload without a connection shows
them and says how old they are; a note written offline is kept with its place, heading and time of
writing, and sent exactly once (its Idempotency-Key) when the connection returns, the person told
when it went out. The offline banner never covers the post button."""
import datetime
import json
import os
import re
import struct

import pytest
import requests
from selenium.webdriver.common.by import By

from pages import WEB, iso, js, offset, screenshot, serious, serve_board, set_language, settle, status, wait_for

HERE = (1.2966, 103.7764)  # a campus
PASSWORD = "offline-password-123"


def seed():
    now = datetime.datetime.now(datetime.timezone.utc)
    return [{"lat": offset(HERE, 10 + number * 7, 3)[0], "lon": HERE[1], "message": f"Before the rain {number}", "tag": "food",
             "createdAt": iso(now - datetime.timedelta(minutes=number + 1))} for number in range(12)]


@pytest.fixture(scope="module")
def board():
    yield from serve_board(seed())


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_the_manifest_makes_the_page_installable(board, browsers):
    answer = requests.get(board.url + "/manifest.webmanifest", timeout=30)
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("application/manifest+json"), answer.headers
    manifest = answer.json()
    assert manifest["display"] == "standalone" and manifest["start_url"].startswith("/") and manifest["scope"] == "/"
    assert manifest["name"] and manifest["short_name"] and manifest["theme_color"] and manifest["background_color"]
    sizes = {}
    for icon in manifest["icons"]:
        fetched = requests.get(board.url + icon["src"], timeout=30)
        assert fetched.status_code == 200, icon
        if icon["type"] == "image/png":
            assert png_size(fetched.content) == tuple(int(n) for n in icon["sizes"].split("x")), icon
            sizes[(icon["sizes"], icon.get("purpose", "any"))] = True
    # Chromium's install criteria: a 192 and a 512 icon; a maskable one for Android's round icons.
    assert ("192x192", "any") in sizes and ("512x512", "any") in sizes and ("512x512", "maskable") in sizes
    driver = browsers.start("phone", where=HERE)
    driver.get(f"{board.url}/?view=map")
    assert js(driver, "return document.querySelector('link[rel=manifest]').href").endswith("/manifest.webmanifest")
    assert js(driver, "return document.querySelector('link[rel=apple-touch-icon]').href").endswith(".png")
    # Chromium itself finds nothing missing in the manifest (what an install prompt needs).
    wait_for(driver, lambda d: js(d, "return navigator.serviceWorker.controller !== null"), timeout=20, message="the worker in control")
    errors = driver.execute_cdp_cmd("Page.getAppManifest", {})
    assert errors.get("errors") == [], errors.get("errors")
    assert json.loads(errors["data"])["name"] == manifest["name"]


def test_the_worker_caches_every_module_the_page_loads():
    """sw.js lists the page's files: a module missing there would break the page offline."""
    with open(os.path.join(WEB, "sw.js"), encoding="utf8") as handle:
        source = handle.read()
    block = source[source.index("const SHELL_FILES"):source.index("];", source.index("const SHELL_FILES"))]
    listed = set(re.findall(r'"(/[^"]*)"', block))
    seen, todo = set(), ["app.js"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        with open(os.path.join(WEB, name), encoding="utf8") as handle:
            text = handle.read()
            todo += re.findall(r'^import .*? from "\./([^"]+)"', text, re.M) + re.findall(r'import\("\./([^"]+)"\)', text)
    assert {"/" + name for name in seen} <= listed, sorted({"/" + name for name in seen} - listed)
    missing = [path for path in listed if path != "/" and not path.startswith("/vendor/") and not os.path.exists(os.path.join(WEB, path[1:]))]
    assert missing == []
    # index.html asks for the modules app.js imports at once: exactly those (a stale list fetches for nothing).
    static, todo = set(), ["app.js"]
    while todo:
        name = todo.pop()
        if name in static:
            continue
        static.add(name)
        with open(os.path.join(WEB, name), encoding="utf8") as handle:
            todo += re.findall(r'^import .*? from "\./([^"]+)"', handle.read(), re.M)
    with open(os.path.join(WEB, "index.html"), encoding="utf8") as handle:
        preloaded = set(re.findall(r'<link rel="modulepreload" href="/([^"]+)">', handle.read()))
    assert preloaded == static - {"app.js"}, (sorted(preloaded ^ (static - {"app.js"})))


def go_offline(driver, offline=True):
    """The phone loses (or gets back) its connection: the page and its service worker alike (the
    DevTools protocol's emulation is per target, so the worker's own session is told too)."""
    conditions = {"offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", conditions)
    for target in driver.execute_cdp_cmd("Target.getTargets", {})["targetInfos"]:
        if target["type"] != "service_worker":
            continue
        session = driver.execute_cdp_cmd("Target.attachToTarget", {"targetId": target["targetId"], "flatten": False})["sessionId"]
        for number, (method, params) in enumerate([("Network.enable", {}), ("Network.emulateNetworkConditions", conditions)]):
            driver.execute_cdp_cmd("Target.sendMessageToTarget", {"sessionId": session, "message": json.dumps(
                {"id": number + 1, "method": method, "params": params})})


def test_offline_the_page_and_the_last_board_seen_open_and_say_how_old(board, browsers):
    driver = browsers.start("phone", where=HERE)
    url = f"{board.url}/?view=list&lat={HERE[0]:.6f}&lon={HERE[1]:.6f}&radius=200"
    driver.get(url)
    wait_for(driver, lambda d: js(d, "return navigator.serviceWorker.controller !== null"), timeout=20, message="the worker in control")
    driver.get(url)  # read once under the worker: this is the board it keeps
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#posts li[data-id]")) == 12, message="the list")
    go_offline(driver)
    try:
        driver.get(url)
        # The page itself opens (not the browser's error page), with the notes last seen and their age.
        wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#posts li[data-id]")) == 12, timeout=15, message="the saved list")
        banner = wait_for(driver, lambda d: d.find_element(By.ID, "offline") if d.find_element(By.ID, "offline").is_displayed() else None,
                          message="the offline banner")
        assert "No connection: this is the board as it was" in banner.text, banner.text
        # The banner sits in the page's column: it covers no note and no button.
        box = banner.rect
        for element in driver.find_elements(By.CSS_SELECTOR, "#posts li[data-id] button"):
            if element.is_displayed():
                other = element.rect
                assert other["y"] >= box["y"] + box["height"] - 1 or other["y"] + other["height"] <= box["y"] + 1, (box, other)
        assert serious(driver) == []
        screenshot(driver, "offline-phone-saved-board")
    finally:
        go_offline(driver, False)


@pytest.mark.parametrize("language", ["en", "zh-Hant", "zh-Hans"])
def test_a_note_written_offline_goes_out_once_when_the_connection_returns(board, browsers, language):
    driver = browsers.start("phone", where=HERE)
    driver.execute_cdp_cmd("DeviceOrientation.setDeviceOrientationOverride", {"alpha": 270, "beta": 90, "gamma": 0})  # facing east
    driver.get(f"{board.url}/?view=look&lat={HERE[0]:.6f}&lon={HERE[1]:.6f}")
    if language != "en":
        set_language(driver, language)
    driver.find_element(By.ID, "compass").click()
    wait_for(driver, lambda d: js(d, "return document.getElementById('facing').value") == "90", message="the compass says east")
    wait_for(driver, lambda d: js(d, "return navigator.serviceWorker.controller !== null"), timeout=20, message="the worker in control")
    driver.find_element(By.ID, "tab-post").click()
    message = f"Written in the lift ({language})"
    go_offline(driver)
    try:
        wait_for(driver, lambda d: js(d, "return navigator.onLine") is False)
        driver.find_element(By.ID, "message").send_keys(message)
        assert driver.find_element(By.ID, "with-heading").is_selected()
        button = driver.find_element(By.ID, "post-button")
        js(driver, "arguments[0].scrollIntoView({block: 'center'})", button)
        # Nothing covers the button offline (the banner stands in the page's column): a tap lands on it.
        assert js(driver, "const b = arguments[0].getBoundingClientRect(); const e = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2);"
                          " return e === arguments[0] || arguments[0].contains(e)", button)
        button.click()
        waiting = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#outbox-list .outbox-item"), message="kept for later")
        assert len(waiting) == 1 and message in waiting[0].text
        kept = js(driver, "return JSON.parse(localStorage.getItem('noticeboard-outbox'))")
        assert len(kept) == 1 and kept[0]["body"]["heading"] == 90 and kept[0]["body"]["message"] == message
        assert abs(kept[0]["body"]["lat"] - HERE[0]) < 1e-6 and len(kept[0]["key"]) >= 16
        assert datetime.datetime.fromisoformat(kept[0]["writtenAt"].replace("Z", "+00:00")) <= datetime.datetime.now(datetime.timezone.utc)
        assert driver.find_element(By.ID, "message").get_attribute("value") == ""
        assert driver.find_element(By.ID, "compose-done").text, "the person is told it waits"
        assert serious(driver) == []
        screenshot(driver, f"offline-phone-note-kept-{language}")
        # Nothing went out meanwhile.
        found = requests.get(board.url + "/api/v1/posts/nearby", params={"lat": HERE[0], "lon": HERE[1], "radius": 50, "limit": 500}, timeout=30).json()
        assert message not in [post["message"] for post in found["posts"]]
        # A reload offline keeps it waiting (it is on the phone, not in the page).
        driver.refresh()
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#outbox-list .outbox-item"), timeout=15, message="still waiting after a reload")
    finally:
        go_offline(driver, False)
    # The connection returns: it goes out once, and the person is told when.
    sent = wait_for(driver, lambda d: d.find_element(By.ID, "outbox-sent") if d.find_element(By.ID, "outbox-sent").is_displayed() else None,
                    timeout=30, message="told it went out")
    assert not driver.find_elements(By.CSS_SELECTOR, "#outbox-list .outbox-item")
    assert driver.find_element(By.ID, "compose-done").text == "", "no longer said to be kept on the phone"
    screenshot(driver, f"offline-phone-note-sent-{language}")
    # The connection "returns" again (another online event, a second tab): nothing more goes out.
    js(driver, "window.dispatchEvent(new Event('online'))")
    settle(1.5)
    found = requests.get(board.url + "/api/v1/posts/nearby", params={"lat": HERE[0], "lon": HERE[1], "radius": 50, "limit": 500}, timeout=30).json()
    made = [post for post in found["posts"] if post["message"] == message]
    assert len(made) == 1, made
    assert made[0]["heading"] == 90 and abs(made[0]["lat"] - HERE[0]) < 1e-6
    assert js(driver, "return JSON.parse(localStorage.getItem('noticeboard-outbox'))") == []
    # The same key sent again makes nothing new (the board keeps it): exactly once even if the answer was lost.
    again = requests.post(board.url + "/api/v1/posts", json=kept[0]["body"], headers={"Idempotency-Key": kept[0]["key"]}, timeout=30)
    assert again.status_code in (200, 201) and again.json()["id"] == made[0]["id"]
    assert sent.text
