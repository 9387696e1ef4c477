"""Web Push on the page (issue 21): "Notify me about new notes here" registers sw.js, asks for
permission only on the tap, subscribes with the server's key and sends the circle around the person
to the board; a note posted there reaches our loopback push service, which decrypts it with the
keys the test made (headless Chromium has no push service: PushManager is stubbed to hand out a
subscription with those keys). "Stop" ends it on the board and in the browser: no push for the
next note. Blocked and unsupported browsers say so; axe-core finds nothing serious in any state."""
import json
import time

import pytest
import requests
from selenium.webdriver.common.by import By

from outbox_receivers import Receiver
from pages import js, screenshot, serious, set_language, small_targets, start_board, status, stop_board, wait_for
from test_push import Browser, verify_vapid

HERE = (35.6812, 139.7671)
NEAR = (35.6815, 139.7675)  # about 50 m away


def stub_push(keys):
    """PushManager as a browser with a push service would be: subscribe hands out our endpoint and keys."""
    subscription = json.dumps(keys.subscription())
    return f"""
    (() => {{
      const made = {subscription};
      window.__push = {{ log: [] }};
      let current = null;
      const base64url = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
      const subscription = (key) => ({{
        endpoint: made.endpoint, expirationTime: null, options: {{ userVisibleOnly: true, applicationServerKey: key }},
        toJSON: () => ({{ endpoint: made.endpoint, expirationTime: null, keys: made.keys }}),
        unsubscribe: async () => {{ window.__push.log.push(['unsubscribe']); current = null; return true; }},
      }});
      PushManager.prototype.subscribe = async function (options) {{
        const key = options.applicationServerKey;
        window.__push.log.push(['subscribe', base64url(key.buffer ? key.buffer : key), options.userVisibleOnly]);
        current = subscription(key.buffer ? key.buffer : key);
        return current;
      }};
      PushManager.prototype.getSubscription = async function () {{ return current; }};
    }})();"""


@pytest.fixture(scope="module")
def service():
    receiver = Receiver()
    receiver.status_for = lambda path: 201
    yield receiver
    receiver.close()


@pytest.fixture(scope="module")
def board():
    # Loopback push endpoints are refused unless allowed: our push service listens on 127.0.0.1.
    server, data_dir = start_board(extra=("--webhook-allow-host", "127.0.0.1"))
    try:
        yield server
    finally:
        stop_board(server, data_dir)


def notify_state(driver):
    return js(driver, "return document.getElementById('notify').dataset.state")


def open_list(driver, board):
    driver.get(f"{board.url}/?view=list&radius=500")
    wait_for(driver, lambda d: "lat=" in d.current_url, message="located")
    wait_for(driver, lambda d: d.find_element(By.ID, "notify-on").is_displayed(), message="the notify button")


def test_notify_me_subscribes_the_circle_and_stop_ends_it(board, service, browsers):
    keys = Browser(service.url + "/push/page")
    driver = browsers.start("phone", where=HERE)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": stub_push(keys)})
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": board.url, "permissions": ["notifications", "geolocation"]})

    served = requests.get(board.url + "/sw.js", timeout=10)
    assert served.status_code == 200 and "javascript" in served.headers["content-type"], served.headers
    open_list(driver, board)
    # Nothing is asked or subscribed until the tap (the worker registers for offline use, without a push subscription).
    assert js(driver, "return window.__push.log") == []
    assert js(driver, "return Notification.permission") != "denied"
    assert js(driver, "return navigator.serviceWorker.getRegistration().then((r) => r ? r.pushManager.getSubscription() : null)") is None
    button = driver.find_element(By.ID, "notify-on")
    assert button.text == "Notify me" and button.accessible_name == "Notify me about new notes here"
    assert button.rect["height"] >= 44 and button.rect["width"] >= 44
    assert notify_state(driver) == "off"
    violations = serious(driver)
    assert violations == [], violations
    screenshot(driver, "notify-phone-off")

    button.click()
    wait_for(driver, lambda d: notify_state(d) == "on", timeout=15, message="notifying")
    text = driver.find_element(By.ID, "notify-state").text
    assert "Notifying you about new notes within 500 m of here" in text and "Stop" in text, text
    # The status line confirms in a few words; the sentence is said once, in the banner.
    assert status(driver) == "Notifications are on." and "Notifying you" not in status(driver)
    server_key = board.get("/api/v1/push/key").json()["publicKey"]
    log = js(driver, "return window.__push.log")
    assert log == [["subscribe", server_key, True]], log
    scope = js(driver, "return navigator.serviceWorker.getRegistration().then((r) => r && r.active ? r.active.scriptURL : null)")
    assert scope == board.url + "/sw.js"
    kept = json.loads(js(driver, "return localStorage.getItem('noticeboard-push')"))
    assert kept["area"]["radius"] == 500 and abs(kept["area"]["lat"] - HERE[0]) < 1e-6, kept
    assert driver.find_element(By.ID, "notify-stop").rect["height"] >= 44
    assert small_targets(driver) == []
    violations = serious(driver)
    assert violations == [], violations
    screenshot(driver, "notify-phone-on")
    # In the other languages too, from the catalogs.
    set_language(driver, "zh-Hant")
    assert "這裡 500 公尺內有新留言時會通知你" in driver.find_element(By.ID, "notify-state").text or \
        "500" in driver.find_element(By.ID, "notify-state").text and "Notifying" not in driver.find_element(By.ID, "notify-state").text
    assert driver.find_element(By.ID, "notify-stop").text == "停止"
    screenshot(driver, "notify-phone-on-zh-Hant")
    set_language(driver, "en")

    # The board has the subscription: a note posted in the circle is pushed, encrypted for our keys.
    made = board.post({"lat": NEAR[0], "lon": NEAR[1], "message": "ラーメン here 🍜", "tag": "food"}).json()
    board.post({"lat": 34.69, "lon": 135.50, "message": "far away", "tag": "food"})
    assert service.wait_for(lambda s: any(c["path"] == "/push/page" for c in s.snapshot()), 20), "no push arrived"
    time.sleep(1)  # a push for the far note would come within this
    calls = [c for c in service.snapshot() if c["path"] == "/push/page"]
    assert len(calls) == 1, calls
    verify_vapid(calls[0]["headers"], server_key, service.url)
    pushed = keys.decrypt(calls[0]["body"])
    assert pushed["post"]["id"] == made["id"] and pushed["post"]["message"] == "ラーメン here 🍜"

    # The service worker shows a pushed note: the tag in the title, the message (shortened: "…") as
    # the body, its language, and note-ID as the tag, so the same note pushed twice is one notification.
    # (The push goes through the browser's own delivery, via the DevTools protocol.)
    payload = {"post": {**pushed["post"], "message": "湯很好喝"}, "truncated": True}
    driver.execute_cdp_cmd("ServiceWorker.enable", {})
    shown = []
    for attempt in range(8):  # the worker may still be starting: delivered again until it shows
        for registration in map(str, range(12)):  # a fresh profile numbers its registrations from 0
            driver.execute_cdp_cmd("ServiceWorker.deliverPushMessage", {"origin": board.url, "registrationId": registration,
                                                                        "data": json.dumps(payload, ensure_ascii=False)})
        time.sleep(0.5 if attempt else 1)
        shown = js(driver, """return navigator.serviceWorker.ready.then((r) => r.getNotifications())
            .then((found) => found.map((n) => ({title: n.title, body: n.body, tag: n.tag, lang: n.lang, url: n.data.url})))""")
        if shown and attempt:
            break  # delivered at least twice: a repeat replaced the first
    assert shown == [{"title": "#food · NoticeBoard", "body": "湯很好喝…", "tag": f"note-{made['id']}", "lang": "zh",
                      "url": f"/#/note/{made['id']}"}], shown

    # Stop: DELETE with this device's key, and the browser's subscription ends too.
    device = js(driver, "return localStorage.getItem('noticeboard-device-key')")
    driver.find_element(By.ID, "notify-stop").click()
    wait_for(driver, lambda d: notify_state(d) == "off", timeout=10, message="stopped")
    assert js(driver, "return window.__push.log")[-1] == ["unsubscribe"]
    assert js(driver, "return localStorage.getItem('noticeboard-push')") is None
    assert driver.switch_to.active_element.get_attribute("id") == "notify-on"
    gone = requests.delete(board.url + f"/api/v1/push/subscriptions/{kept['id']}", headers={"X-Device-Key": device}, timeout=10)
    assert gone.status_code == 404, "the page's DELETE already ended it"
    board.post({"lat": NEAR[0], "lon": NEAR[1], "message": "after stop", "tag": "food"})
    time.sleep(3)  # a push after Stop would come within this
    assert len([c for c in service.snapshot() if c["path"] == "/push/page"]) == 1, "pushed after Stop"
    violations = serious(driver)
    assert violations == [], violations


def test_blocked_and_unsupported_say_so(board, service, browsers):
    keys = Browser(service.url + "/push/blocked")
    driver = browsers.start("phone", where=HERE)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": stub_push(keys)})
    driver.execute_cdp_cmd("Browser.setPermission", {"origin": board.url, "permission": {"name": "notifications"}, "setting": "denied"})
    open_list(driver, board)
    driver.find_element(By.ID, "notify-on").click()
    problem = driver.find_element(By.ID, "notify-problem")
    wait_for(driver, lambda d: problem.is_displayed(), message="blocked said")
    assert "blocked" in problem.text and notify_state(driver) == "off"
    assert js(driver, "return window.__push.log") == []
    violations = serious(driver)
    assert violations == [], violations
    screenshot(driver, "notify-phone-blocked")

    # A browser without Web Push (an old one, or an iPhone's Safari outside the home screen).
    gone = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": "delete window.PushManager;"})["identifier"]
    open_list(driver, board)
    driver.find_element(By.ID, "notify-on").click()
    problem = driver.find_element(By.ID, "notify-problem")
    wait_for(driver, lambda d: problem.is_displayed(), message="unsupported said")
    assert "cannot show notifications" in problem.text
    violations = serious(driver)
    assert violations == [], violations
    driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": gone})

    # The board refuses the push service (a private address): said in words, and the browser's
    # subscription made for it is ended again.
    private = Browser("http://10.0.0.9/push")
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": stub_push(private)})
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": board.url, "permissions": ["notifications", "geolocation"]})
    open_list(driver, board)
    driver.find_element(By.ID, "notify-on").click()
    problem = driver.find_element(By.ID, "notify-problem")
    wait_for(driver, lambda d: problem.is_displayed(), timeout=15, message="refusal said")
    assert "notification service" in problem.text, problem.text
    assert [entry[0] for entry in js(driver, "return window.__push.log")] == ["subscribe", "unsubscribe"]
    assert notify_state(driver) == "off"


def test_a_push_service_that_never_answers_is_given_up_and_said(board, service, browsers):
    """The browser's push sign-up hangs (its push service out of reach): the page says at once that it
    is working on it, after 3 s that it is still waiting, and after 8 s that it gave up; the button is
    usable again, and nothing is kept as turned on."""
    keys = Browser(service.url + "/push/silent")
    driver = browsers.start("phone", where=HERE)
    silent = stub_push(keys) + "PushManager.prototype.subscribe = function () { window.__push.log.push(['subscribe']); return new Promise(() => {}); };"
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": silent})
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": board.url, "permissions": ["notifications", "geolocation"]})
    open_list(driver, board)
    start = driver.find_element(By.ID, "notify-on")
    start.click()
    progress = driver.find_element(By.ID, "notify-progress")
    wait_for(driver, lambda d: progress.is_displayed() and "Turning notifications on" in progress.text, timeout=1, message="said at once")
    clicked = time.time()
    wait_for(driver, lambda d: js(d, "return window.__push.log") == [["subscribe"]], message="the sign-up asked")
    assert start.get_attribute("disabled") is not None  # busy meanwhile
    wait_for(driver, lambda d: "Still waiting" in progress.text, timeout=5, message="still waiting, said within seconds")
    problem = driver.find_element(By.ID, "notify-problem")
    wait_for(driver, lambda d: problem.is_displayed(), timeout=12, message="the silence said")
    assert time.time() - clicked < 11, "given up within about 8 s, not 15"
    assert not progress.is_displayed()
    assert "did not answer" in problem.text and notify_state(driver) == "off", problem.text
    assert start.get_attribute("disabled") is None and start.is_displayed()
    assert js(driver, "return localStorage.getItem('noticeboard-push')") is None  # nothing kept as on


def test_the_map_has_the_bell_too(board, service, browsers):
    """Notify me is not only on Around me: the map's bell subscribes the circle around the person,
    says so, and stops it again."""
    keys = Browser(service.url + "/push/map")
    driver = browsers.start("phone", where=HERE)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": stub_push(keys)})
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": board.url, "permissions": ["notifications", "geolocation"]})
    driver.get(f"{board.url}/?view=map&radius=500")
    wait_for(driver, lambda d: "lat=" in d.current_url, message="located")
    bell = driver.find_element(By.ID, "notify-map")
    assert bell.is_displayed() and bell.accessible_name == "Notify me about new notes here"
    assert bell.rect["width"] >= 44 and bell.rect["height"] >= 44
    bell.click()
    wait_for(driver, lambda d: notify_state(d) == "on", timeout=15, message="notifying from the map")
    assert bell.get_attribute("aria-pressed") == "true" and "500 m" in bell.accessible_name
    assert status(driver) == "Notifications are on."
    kept = json.loads(js(driver, "return localStorage.getItem('noticeboard-push')"))
    assert abs(kept["area"]["lat"] - HERE[0]) < 1e-6
    assert serious(driver) == []
    screenshot(driver, "notify-phone-map-on")
    bell.click()
    wait_for(driver, lambda d: notify_state(d) == "off", timeout=10, message="stopped from the map")
    assert bell.get_attribute("aria-pressed") == "false"
