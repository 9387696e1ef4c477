"""Shared by the page tests of issue 19: one server per module on a seeded board, browsers at
phone size (390×844, touch) and desktop size, screenshots into test-output/, axe-core checks."""
import datetime
import json
import math
import os
import shutil
import subprocess
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service as ChromeService
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from accessibility import axe_violations
from conftest import BINARY, OUTPUT, Server, add_moderator, new_data_dir, shared_postgres, stop_and_clean

WEB = os.path.join(os.path.dirname(__file__), "../../web")  # the page as edited, not the build's copy
SHOTS = os.path.join(OUTPUT, "screenshots")
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}
DESKTOP = (1280, 900)
METRES_PER_DEGREE = 111_195


def iso(moment):
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def offset(where, north_m, east_m):
    """A point `north_m` metres north and `east_m` metres east of `where`."""
    lat, lon = where
    return (lat + north_m / METRES_PER_DEGREE, lon + east_m / (METRES_PER_DEGREE * math.cos(math.radians(lat))))


def at_bearing(where, bearing, metres):
    return offset(where, metres * math.cos(math.radians(bearing)), metres * math.sin(math.radians(bearing)))


def start_board(rows=(), moderator=None, extra=()):
    """A server on a fresh database of the shared PostgreSQL with `rows` imported (dicts with lat,
    lon, message, tag, createdAt, heading…) and `extra` flags; returns (server, data_dir)."""
    data_dir = new_data_dir()
    database_url = shared_postgres().create()
    if rows:
        path = os.path.join(data_dir, "seed.ndjson")
        with open(path, "w") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        imported = subprocess.run([BINARY, "import", path, "--database-url", database_url], capture_output=True, text=True, timeout=300)
        assert imported.returncode == 0, imported.stderr
    if moderator:
        add_moderator(database_url, *moderator)
    # Every test browser comes from 127.0.0.1: the per-address stream cap (16) would pause the
    # live updates of a module that keeps many pages open.
    server = Server(data_dir, "--post-rate-per-minute", "0", "--like-rate-per-minute", "0", "--streams-per-client", "256",
                    "--tile-url", "/no-tiles/{z}/{x}/{y}.png", "--web-dir", WEB, *extra, database_url=database_url)
    return server, data_dir


def serve_board(rows=(), moderator=None, extra=()):
    """A module fixture's body: `start_board`, then `stop_board` when the module is done."""
    server, data_dir = start_board(rows, moderator, extra)
    try:
        yield server
    finally:
        stop_board(server, data_dir)


def stop_board(server, data_dir):
    stop_and_clean(server, data_dir, server.database_url)


class Browsers:
    """Chromium sessions for one module, all quit at its end. A session a finished test held goes
    to the next test that asks for the same kind, size, language and switches, reset first: a
    fresh tab (no emulation, network condition or injected script of the last test), what the
    sites it can have seen stored forgotten, permissions and downloads back to their defaults,
    the console log drained. A module so starts about one Chromium for each kind it uses."""

    def __init__(self, origins):
        """`origins`: a function giving the sites whose stored data a session must forget."""
        self.origins = origins
        self.drivers = []
        self.idle = {}
        self.lent = []

    def start(self, kind="phone", where=None, language="en-GB", accept_languages=None, arguments=(), size=None):
        """`arguments`: more Chromium switches (a fake camera, say); `size`: a window other than the kind's."""
        width, height = size or ((PHONE["width"], PHONE["height"]) if kind == "phone" else DESKTOP)
        key = (kind, width, height, language, accept_languages, tuple(arguments))
        waiting = self.idle.get(key)
        driver = waiting.pop() if waiting else self.launch(width, height, language, accept_languages, arguments)
        if kind == "phone":
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
            driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        if where:
            driver.execute_cdp_cmd("Emulation.setGeolocationOverride", {"latitude": where[0], "longitude": where[1], "accuracy": 5})
        self.lent.append((key, driver))
        return driver

    def launch(self, width, height, language, accept_languages, arguments):
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium")
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={width},{height}", f"--lang={language}",
                         *arguments):
            options.add_argument(argument)
        if accept_languages:
            options.add_experimental_option("prefs", {"intl.accept_languages": accept_languages})
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(options=options, service=ChromeService(shutil.which("chromedriver")))
        self.drivers.append(driver)
        return driver

    def release(self):
        """The sessions lent to the test that ended, reset for the next one (or quit if they cannot be)."""
        for key, driver in self.lent:
            if driver not in self.drivers:
                continue  # the test quit it itself
            try:
                reset(driver, self.origins())
                self.idle.setdefault(key, []).append(driver)
            except Exception:
                self.drivers.remove(driver)
                quit_quietly(driver)
        self.lent = []

    def quit(self):
        for driver in self.drivers:
            quit_quietly(driver)
        self.drivers = []
        self.idle = {}
        self.lent = []


def reset(driver, origins):
    """A session as a test leaves it, made fit for the next: its tabs replaced by a fresh one and
    what the sites stored (local storage, IndexedDB, service workers, caches, cookies) removed."""
    old = driver.window_handles
    driver.switch_to.new_window("tab")
    fresh = driver.current_window_handle
    for handle in old:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(fresh)
    for origin in origins:
        driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
    driver.execute_cdp_cmd("Network.clearBrowserCache", {})
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.execute_cdp_cmd("Browser.resetPermissions", {})
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "default"})
    driver.get_log("browser")


def quit_quietly(driver):
    try:
        driver.quit()
    except Exception:
        pass


def wait_for(driver, condition, timeout=10, message=""):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d), message)


def screenshot(driver, name):
    os.makedirs(SHOTS, exist_ok=True)
    driver.save_screenshot(os.path.join(SHOTS, f"{name}.png"))


def status(driver):
    return driver.find_element(By.ID, "status").text


def js(driver, script, *args):
    return driver.execute_script(script, *args)


def list_messages(driver):
    return js(driver, "return [...document.querySelectorAll('#posts li[data-id] .message')].map(e => e.textContent)")


def set_language(driver, code):
    """Chooses a language from the page's picker, as a person would."""
    from selenium.webdriver.support.ui import Select
    Select(driver.find_element(By.ID, "language")).select_by_value(code)
    wait_for(driver, lambda d: d.execute_script("return document.documentElement.lang") == code)


def serious(driver):
    """axe-core's serious and critical findings on the page as it stands."""
    return axe_violations(driver, impacts=("serious", "critical"))


def small_targets(driver):
    """Visible controls smaller than 44×44 px (inline text links in a sentence excepted, as WCAG 2.5.8 allows)."""
    return js(driver, """
        const selector = 'button, [role=button], [role=tab], input:not([type=hidden]), select, textarea, summary, a[href], label.chip';
        return [...document.querySelectorAll(selector)].filter((element) => {
            const box = element.getBoundingClientRect();
            if (box.width === 0 || box.height === 0 || element.closest('[hidden], dialog:not([open])')) return false;
            if (getComputedStyle(element).visibility === 'hidden') return false;
            if (element.matches('.note-title a, .leaflet-control-attribution a, .skip')) return false;
            if (element.matches('input[type=radio], input[type=checkbox]') && element.closest('label')) {
                const label = element.closest('label').getBoundingClientRect();
                return label.height < 44;
            }
            if (element.matches('.leaflet-marker-icon.note-marker') ) return box.width < 44 || box.height < 44;
            return box.width < 44 || box.height < 44;
        }).map((element) => `${element.tagName.toLowerCase()}#${element.id}.${element.className} ${Math.round(element.getBoundingClientRect().width)}x${Math.round(element.getBoundingClientRect().height)} "${(element.textContent || element.value || '').trim().slice(0, 30)}"`);""")


def overlaps(boxes):
    """Pairs of boxes ({x, y, width, height, id}) that overlap by more than a pixel."""
    found = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if (a["x"] + a["width"] - 1 > b["x"] and b["x"] + b["width"] - 1 > a["x"]
                    and a["y"] + a["height"] - 1 > b["y"] and b["y"] + b["height"] - 1 > a["y"]):
                found.append((a.get("id"), b.get("id")))
    return found


def boxes(driver, selector):
    return js(driver, """return [...document.querySelectorAll(arguments[0])].map((element) => {
        const box = element.getBoundingClientRect();
        return {id: element.dataset.id || element.textContent, x: box.x, y: box.y, width: box.width, height: box.height};
    });""", selector)


def settle(seconds=0.5):
    time.sleep(seconds)
