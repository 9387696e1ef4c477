"""The moderators' desk in headless Chromium against the real server (issue 22): the dashboard
draws every chart from seeded data (read back from Chart.js and checked against counts made
here and against the stats API), each chart's table matches it, the reported queue is most
reported first; restore writes its own reason (or none) into the audit log, audit entries open
what they concern, a hide can be undone, the CSV download holds the filtered notes; on a phone
the notes are cards and nothing is cut off; axe-core finds nothing serious on any view."""
import base64
import csv
import datetime
import io
import json
import math
import re
import os
import shutil
import subprocess
import tempfile
import time

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from accessibility import axe_violations
from pages import set_language
from conftest import BINARY, Server, new_data_dir, shared_postgres, stop_and_clean
from test_browser import HERE, METRES_PER_DEGREE, SCREENSHOTS, browser_factory, iso, wait_for  # noqa: F401 (fixture)

WEB = os.path.join(os.path.dirname(__file__), "../../web")
CSV_HEADER = ["id", "lat", "lon", "heading", "message", "tag", "createdAt", "accuracy", "floor", "beacon", "status"]
WIDTH = {"hour": 3_600_000, "day": 86_400_000, "week": 7 * 86_400_000}
EAST = (HERE[0], HERE[1] + 3000 / (METRES_PER_DEGREE * math.cos(math.radians(HERE[0]))))  # 3 km east
LONDON = (51.5072, -0.1276)
MINUTE, HOUR, DAY = 60, 3600, 86400
# Imported notes: message, tag, seconds ago, where. Some are older than 30 days (in the weeks
# only) and one older than 26 weeks (in no chart).
IMPORTED = [
    ("Soup kitchen opens at noon", "food", 90 * MINUTE, HERE),
    ("Free bread at the bakery", "food", 5 * HOUR, HERE),
    ("Street band tonight", "entertainment", 5 * HOUR + 10 * MINUTE, HERE),
    ("Lost scarf near the fountain", "fashion", 30 * HOUR, HERE),
    ("美食 stall by the station", "美食", 2 * DAY, HERE),
    ("Market moved to Sunday", "lifestyle", 3 * DAY, EAST),
    ("Vintage fair", "fashion", 3 * DAY + 2 * HOUR, EAST),
    ("Jazz in the park", "entertainment", 6 * DAY, HERE),
    ("Noodle bar review", "food", 12 * DAY, HERE),
    ("Yoga class in the square", "lifestyle", 20 * DAY, HERE),
    ("Cinema night", "entertainment", 26 * DAY, LONDON),
    ("Autumn coats sale", "fashion", 45 * DAY, HERE),
    ("Harvest festival", "food", 100 * DAY, EAST),
    ("Old winter note", "lifestyle", 400 * DAY, HERE),
]
# Posted now through the API, each from its own phone (address).
POSTED = [("Fresh croissants", "food"), ("Choir practice", "music"), ("Cheap pills at example.com", "food")]
REPORTS = {"Cheap pills at example.com": 4, "Market moved to Sunday": 2, "Lost scarf near the fountain": 1}
BEACON = "f7826da6-4fa2-4e98-8024-bc5b71e0893e:3:9"
VIEWS = ["dashboard", "notes", "audit", "beacons", "places"]


def ms(moment):
    return (moment - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)) // datetime.timedelta(milliseconds=1)


def parse_ms(text):
    return ms(datetime.datetime.fromisoformat(text.replace("Z", "+00:00")))


class Desk:
    """The seeded board: the server, a moderator's token, every note's id and time."""

    def __init__(self, server, token):
        self.server = server
        self.auth = {"Authorization": f"Bearer {token}"}
        self.notes = {}  # message → {"id", "tag", "at" (ms)}

    def api(self, method, path, **kwargs):
        response = requests.request(method, self.server.url + path, headers=self.auth, timeout=30, **kwargs)
        assert response.status_code < 300, (method, path, response.status_code, response.text)
        return response.json() if response.content and response.headers.get("content-type", "").startswith("application/json") else response

    def id(self, message):
        return self.notes[message]["id"]

    def status(self, message):
        [post] = [p for p in self.api("GET", "/api/v1/moderation/posts", params={"limit": 500})["posts"] if p["id"] == self.id(message)]
        return post["status"]

    def audit(self, post_id=None, limit=50):
        entries = self.api("GET", "/api/v1/moderation/audit", params={"limit": limit})["entries"]
        return [entry for entry in entries if post_id is None or entry["postId"] == post_id]


@pytest.fixture(scope="module")
def desk():
    """One server for the module. Tests run in file order: the dashboard's counts come first,
    before the other tests hide and restore."""
    data_dir = new_data_dir()
    database_url = shared_postgres().create()
    server = None
    try:
        now = datetime.datetime.now(datetime.timezone.utc)
        seed = os.path.join(data_dir, "seed.ndjson")
        with open(seed, "w", encoding="utf8") as handle:
            for message, tag, ago, (lat, lon) in IMPORTED:
                handle.write(json.dumps({"lat": lat, "lon": lon, "message": message, "tag": tag,
                                         "createdAt": iso(now - datetime.timedelta(seconds=ago))}) + "\n")
        imported = subprocess.run([BINARY, "import", seed, "--database-url", database_url], capture_output=True, text=True, timeout=120)
        assert imported.returncode == 0, imported.stderr
        added = subprocess.run([BINARY, "moderator", "add", "alice", "--database-url", database_url], input="alice-password-123\n",
                               capture_output=True, text=True, timeout=120)
        assert added.returncode == 0, added.stderr
        server = Server(data_dir, "--post-rate-per-minute", "0", "--tile-url", "/no-tiles/{z}/{x}/{y}.png", "--web-dir", WEB,
                        "--trusted-proxy", "127.0.0.1", "--report-threshold", "10", database_url=database_url)
        login = requests.post(server.url + "/api/v1/auth/token", json={"username": "alice", "password": "alice-password-123"}, timeout=30)
        desk = Desk(server, login.json()["token"])
        for number, (message, tag) in enumerate(POSTED):
            posted = server.post({"lat": HERE[0], "lon": HERE[1], "message": message, "tag": tag},
                                 headers={"X-Forwarded-For": f"10.9.0.{number + 1}"})
            assert posted.status_code == 201, posted.text
        for post in desk.api("GET", "/api/v1/moderation/posts", params={"limit": 500})["posts"]:
            desk.notes[post["message"]] = {"id": post["id"], "tag": post["tag"], "at": parse_ms(post["createdAt"])}
        assert len(desk.notes) == len(IMPORTED) + len(POSTED)
        # Reports from distinct addresses (a repeat from one address counts once).
        desk.moderated = [ms(datetime.datetime.now(datetime.timezone.utc))]  # when reports, hides and deletes were made
        reporter = 0
        for message, count in REPORTS.items():
            for _ in range(count):
                reporter += 1
                reported = server.post_json(f"/api/v1/posts/{desk.id(message)}/reports", {"reason": "not nice"},
                                            headers={"X-Forwarded-For": f"10.8.0.{reporter}"})
                assert reported.status_code == 202, reported.text
        desk.reports = reporter
        desk.api("POST", f"/api/v1/moderation/posts/{desk.id('Vintage fair')}/hide", json={"reason": "off topic"})
        desk.api("DELETE", f"/api/v1/moderation/posts/{desk.id('Old winter note')}", json={"reason": "outdated"})
        desk.moderated.append(ms(datetime.datetime.now(datetime.timezone.utc)))
        uuid, major, minor = BEACON.split(":")
        desk.api("PUT", f"/api/v1/moderation/beacons/{uuid}/{major}/{minor}", json={"lat": HERE[0], "lon": HERE[1], "name": "Hall door"})
        square = [[HERE[1] - 0.001, HERE[0] - 0.001], [HERE[1] + 0.001, HERE[0] - 0.001], [HERE[1] + 0.001, HERE[0] + 0.001], [HERE[1] - 0.001, HERE[0] + 0.001]]
        desk.api("PUT", "/api/v1/moderation/places/town-hall", json={"name": "Town hall", "polygon": square})
        yield desk
    finally:
        stop_and_clean(server, data_dir, database_url)


# The page

def log_in(driver, desk):
    driver.get(desk.server.url + "/moderate")
    driver.find_element(By.ID, "username").send_keys("alice")
    driver.find_element(By.ID, "password").send_keys("alice-password-123")
    driver.find_element(By.CSS_SELECTOR, "#login button[type=submit]").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "view-dashboard").is_displayed(), message="the dashboard first")
    wait_for_dashboard(driver, "day")


def wait_for_dashboard(driver, bucket):
    wait_for(driver, lambda d: d.find_element(By.ID, "view-dashboard").get_attribute("data-loaded") == bucket, message=f"the dashboard by {bucket}")


def status(driver):
    return driver.find_element(By.ID, "status").text


def show(driver, view):
    """Clicks a tab and waits for its view to have loaded."""
    driver.find_element(By.ID, f"tab-{view}").click()
    if view == "dashboard":
        wait_for_dashboard(driver, driver.find_element(By.ID, "d-period").get_attribute("value"))
        wait_for(driver, lambda d: d.find_element(By.ID, "dash-map").get_attribute("data-bbox") is not None, message="the map's cells")
    else:
        done = {"notes": "notes match", "audit": "audit entries", "beacons": "registered.", "places": "place"}[view]
        wait_for(driver, lambda d: done in status(d), message=f"the {view} view loaded")


def chart(driver, canvas_id):
    return driver.execute_script("""
        const chart = Chart.getChart(document.getElementById(arguments[0]));
        return {labels: [...chart.data.labels],
                datasets: chart.data.datasets.map((d) => ({key: d.key, label: d.label, data: [...d.data]}))};""", canvas_id)


def table(driver, table_id):
    return driver.execute_script("""
        const table = document.getElementById(arguments[0]);
        const numbers = (row) => [...row.querySelectorAll('td')].map((c) => Number(c.textContent));
        return {head: [...table.tHead.rows[0].cells].map((c) => c.textContent),
                starts: [...table.tBodies[0].rows].map((r) => r.querySelector('time').getAttribute('datetime')),
                rows: [...table.tBodies[0].rows].map(numbers),
                total: numbers(table.tFoot.rows[0])};""", table_id)


def open_table(driver, table_id):
    """The chart's "Show as table": closed at first, one click opens it."""
    details = driver.find_element(By.ID, table_id).find_element(By.XPATH, "ancestor::details")
    if details.get_attribute("open") is None:
        assert not driver.find_element(By.ID, table_id).is_displayed()
        details.find_element(By.TAG_NAME, "summary").click()
    wait_for(driver, lambda d: d.find_element(By.ID, table_id).is_displayed(), message=f"{table_id} shown")


def note_ids(driver):
    return driver.execute_script("return [...document.querySelectorAll('#notes-table tbody tr')].map((r) => Number(r.dataset.id))")


def row_status(driver, post_id):
    return driver.execute_script("const r = document.querySelector(`#notes-table tr[data-id='${arguments[0]}']`); return r && r.querySelector('td.status').textContent", post_id)


def serious_violations(driver):
    return axe_violations(driver, impacts={"serious", "critical"})


def script_errors(driver):
    """Errors the page's scripts logged (missing map tiles aside)."""
    return [entry["message"] for entry in driver.get_log("browser")
            if entry["level"] == "SEVERE" and "Failed to load resource" not in entry["message"]]


def full_screenshot(driver, name):
    """The whole page, not only the viewport (a phone's page is long)."""
    os.makedirs(SCREENSHOTS, exist_ok=True)
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"captureBeyondViewport": True, "clip": {
        "x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 5000), "scale": 1}})
    with open(os.path.join(SCREENSHOTS, f"{name}.png"), "wb") as handle:
        handle.write(base64.b64decode(shot["data"]))


# The counts made here, from the seed

def expected(desk, bucket, start_ms, from_ms, to_ms, tag=None):
    return sum(1 for note in desk.notes.values()
               if from_ms <= note["at"] < to_ms and start_ms <= note["at"] < start_ms + WIDTH[bucket] and (tag is None or note["tag"] == tag))


def check_period(driver, desk, bucket):
    """Both charts and their tables against the stats API (same range) and the seed's counts."""
    if driver.find_element(By.ID, "d-period").get_attribute("value") != bucket:
        Select(driver.find_element(By.ID, "d-period")).select_by_value(bucket)
    wait_for_dashboard(driver, bucket)
    shown_range = driver.find_element(By.ID, "d-range")
    stats = desk.api("GET", "/api/v1/moderation/stats", params={
        "bucket": bucket, "from": shown_range.get_attribute("data-from"), "to": shown_range.get_attribute("data-to")})
    assert stats["timeZone"] == "UTC" and stats["bucket"] == bucket
    starts = [item["start"] for item in stats["buckets"]]
    from_ms, to_ms = parse_ms(stats["from"]), parse_ms(stats["to"])

    # Notes and moderation: one series per count, one point per bucket.
    activity = chart(driver, "chart-activity")
    assert [series["key"] for series in activity["datasets"]] == ["posts", "reports", "hidden", "deleted"]
    assert len(activity["labels"]) == len(starts)
    for series in activity["datasets"]:
        assert series["data"] == [item[series["key"]] for item in stats["buckets"]], (bucket, series["key"])
    posts = activity["datasets"][0]["data"]
    assert posts == [expected(desk, bucket, parse_ms(start), from_ms, to_ms) for start in starts], bucket
    assert sum(posts) > 0
    # Reports, the hide and the delete were all made while seeding: in the bucket(s) of those seconds.
    reports, hidden, deleted = (activity["datasets"][index]["data"] for index in (1, 2, 3))
    then = [index for index, start in enumerate(starts)
            if parse_ms(start) <= desk.moderated[1] and desk.moderated[0] < parse_ms(start) + WIDTH[bucket]]
    assert then and then[-1] >= len(starts) - 2, (bucket, then)
    assert sum(reports) == desk.reports and sum(reports[index] for index in then) == desk.reports, (bucket, reports)
    assert sum(hidden) == 1 and sum(hidden[index] for index in then) == 1, (bucket, hidden)
    assert sum(deleted) == 1 and sum(deleted[index] for index in then) == 1, (bucket, deleted)

    # Tags over time: one stacked series per tag, busiest first.
    tags = chart(driver, "chart-tags")
    expected_tags = {note["tag"] for note in desk.notes.values() if from_ms <= note["at"] < to_ms}
    assert {series["key"] for series in tags["datasets"]} == expected_tags
    totals = [sum(series["data"]) for series in tags["datasets"]]
    assert totals == sorted(totals, reverse=True)
    for series in tags["datasets"]:
        assert series["label"] == series["key"]
        assert series["data"] == [item["byTag"].get(series["key"], 0) for item in stats["buckets"]], (bucket, series["key"])
        assert series["data"] == [expected(desk, bucket, parse_ms(start), from_ms, to_ms, series["key"]) for start in starts], (bucket, series["key"])
    assert [sum(values) for values in zip(*(series["data"] for series in tags["datasets"]))] == posts

    # Each chart's table: the same numbers, a row per bucket (its UTC start), totals below.
    for table_id, drawn in (("table-activity", activity), ("table-tags", tags)):
        open_table(driver, table_id)
        shown = table(driver, table_id)
        assert shown["head"] == ["Period (UTC)"] + [series["label"] for series in drawn["datasets"]]
        assert shown["starts"] == starts
        assert shown["rows"] == [list(values) for values in zip(*(series["data"] for series in drawn["datasets"]))]
        assert shown["total"] == [sum(series["data"]) for series in drawn["datasets"]]

    # The summary line: the totals of the period.
    summary = {item.get_attribute("data-key"): int(item.find_element(By.TAG_NAME, "strong").text)
               for item in driver.find_elements(By.CSS_SELECTOR, "#d-totals li")}
    assert summary == {key: stats["totals"][key] for key in ("posts", "reports", "hidden", "deleted", "devices", "replies", "likes")}
    assert summary["posts"] == sum(posts) and summary["devices"] == len(POSTED)
    return stats


def test_the_dashboard_draws_every_chart_from_the_seeded_data(desk, browser_factory):
    driver = browser_factory(1280, 900)
    log_in(driver, desk)
    assert driver.find_element(By.ID, "tab-dashboard").get_attribute("aria-selected") == "true"
    assert [tab.get_attribute("data-view") for tab in driver.find_elements(By.CSS_SELECTOR, "#mod-tabs [role=tab]")] == VIEWS

    for bucket in ("day", "hour", "week"):
        check_period(driver, desk, bucket)
    Select(driver.find_element(By.ID, "d-period")).select_by_value("day")
    wait_for_dashboard(driver, "day")

    # The map of activity: a circle per busiest cell of its view, the same cells as the API's for
    # the view and period it last drew (it redraws as the map settles and the period changes).
    open_table(driver, "table-cells")
    drawn = {}

    def map_agrees_with_api(d):
        shown = d.execute_script("""const map = document.getElementById('dash-map');
            return {bucket: map.dataset.bucket, bbox: map.dataset.bbox, cells: Number(map.dataset.cells || 0),
                    circles: map.querySelectorAll('path.leaflet-interactive').length,
                    rows: [...document.querySelectorAll('#table-cells tbody tr')].map((r) => [...r.cells].map((c) => c.textContent))};""")
        if shown["bucket"] != "day" or shown["bbox"] is None or shown["cells"] == 0:
            return False
        cells = desk.api("GET", "/api/v1/moderation/stats", params={"bucket": "day", "bbox": shown["bbox"] or None})["topCells"]
        drawn.update(shown=shown, cells=cells)
        return (shown["rows"] == [[str(rank + 1), f"{cell['lat']:.5f}", f"{cell['lon']:.5f}", str(cell["count"])] for rank, cell in enumerate(cells)]
                and shown["circles"] == len(cells))

    try:
        wait_for(driver, map_agrees_with_api, timeout=15, message="the map's cells and table as the API's")
    except Exception:
        pytest.fail(f"the map disagrees with the API: {drawn}")
    cells = drawn["cells"]
    busiest = cells[0]
    assert abs(busiest["lat"] - HERE[0]) < 0.01 and abs(busiest["lon"] - HERE[1]) < 0.01, busiest  # most notes are at HERE
    # The legend says the cells' size in the page's language, unit and all.
    legend = lambda d: d.find_element(By.ID, "d-map-legend").text
    assert re.search(r"about [\d.]+ k?m across", legend(driver)), legend(driver)
    set_language(driver, "zh-Hans")
    wait_for(driver, lambda d: re.search(r"约 [\d.]+ ?(公里|米) 宽", legend(d)), message=f"the legend in Chinese: {legend(driver)}")
    set_language(driver, "en")

    # The reported queue: most reported first, with the counts.
    queue = driver.execute_script("""return [...document.querySelectorAll('#report-queue li')].map((li) =>
        [Number(li.dataset.id), Number(li.querySelector('.count strong').textContent)])""")
    assert queue == [[desk.id(message), count] for message, count in sorted(REPORTS.items(), key=lambda item: -item[1])]

    # The latest actions: the audit log's newest entries.
    recent = driver.execute_script("return [...document.querySelectorAll('#recent-audit tbody tr')].map((r) => r.cells[2].dataset.action)")
    assert recent == [entry["action"] for entry in desk.audit(limit=10)]
    assert recent[:4] == ["place_put", "beacon_put", "delete", "hide"]

    driver.execute_script("window.scrollTo(0, 0)")
    full_screenshot(driver, "dashboard-desktop")

    # From the queue: a note opens alone in Notes; another is hidden with the queue's reason, then undone.
    pills = desk.id("Cheap pills at example.com")
    driver.find_element(By.CSS_SELECTOR, f'#report-queue button[aria-label="Open note {pills} in Notes"]').click()
    wait_for(driver, lambda d: d.find_element(By.ID, "view-notes").is_displayed() and note_ids(d) == [pills], message="the reported note alone")
    assert driver.find_element(By.ID, "note-focus").is_displayed() and f"note {pills} only" in driver.find_element(By.ID, "note-focus").text
    driver.find_element(By.ID, "note-focus-clear").click()
    wait_for(driver, lambda d: len(note_ids(d)) == len(desk.notes), message="every note again")

    show(driver, "dashboard")
    scarf = desk.id("Lost scarf near the fountain")
    driver.find_element(By.CSS_SELECTOR, f'#report-queue button[aria-label="Hide note {scarf}"]').click()
    # Without a reason in the queue's field it is asked for; cancelled, nothing is hidden.
    wait_for(driver, lambda d: d.find_element(By.ID, "reason-dialog").is_displayed(), message="a hide needs a reason")
    assert driver.find_element(By.ID, "reason-heading").text == f"Hide note {scarf}?"
    assert driver.find_element(By.ID, "reason-preview").text == "Lost scarf near the fountain"
    driver.find_element(By.ID, "reason-cancel").click()
    assert not driver.find_element(By.ID, "reason-dialog").is_displayed()
    assert desk.status("Lost scarf near the fountain") == "visible"
    driver.find_element(By.ID, "queue-reason").send_keys("checking the queue")
    driver.find_element(By.CSS_SELECTOR, f'#report-queue button[aria-label="Hide note {scarf}"]').click()
    wait_for(driver, lambda d: f"Hid note {scarf}" in status(d), message="hidden from the queue")
    assert desk.status("Lost scarf near the fountain") == "hidden"
    driver.find_element(By.CSS_SELECTOR, "#status button.status-action").click()
    wait_for(driver, lambda d: f"Undone: restored note {scarf}" in status(d), message="undone")
    assert desk.status("Lost scarf near the fountain") == "visible"
    assert [(e["action"], e["reason"]) for e in desk.audit(scarf)[:2]] == [("restore", "undo"), ("hide", "checking the queue")]
    assert script_errors(driver) == []


def test_restore_reasons_audit_links_undo_and_csv(desk, browser_factory):
    driver = browser_factory(1280, 900)
    log_in(driver, desk)
    show(driver, "notes")

    # A hide with "spam", a restore with its own reason "mistake", then a restore with none.
    jazz = desk.id("Jazz in the park")
    driver.find_element(By.ID, "bulk-reason").send_keys("spam")
    driver.find_element(By.CSS_SELECTOR, f'button[aria-label="Hide note {jazz}"]').click()
    wait_for(driver, lambda d: f"Hid note {jazz}" in status(d) and row_status(d, jazz) == "hidden", message="hidden")
    driver.find_element(By.ID, "restore-reason").send_keys("mistake")
    driver.find_element(By.CSS_SELECTOR, f'button[aria-label="Restore note {jazz}"]').click()
    wait_for(driver, lambda d: f"Restored note {jazz}" in status(d) and row_status(d, jazz) == "visible", message="restored")
    assert driver.find_element(By.ID, "restore-reason").get_attribute("value") == ""  # not left for the next restore
    driver.find_element(By.CSS_SELECTOR, f'button[aria-label="Hide note {jazz}"]').click()
    wait_for(driver, lambda d: row_status(d, jazz) == "hidden", message="hidden again")
    driver.find_element(By.CSS_SELECTOR, f'button[aria-label="Restore note {jazz}"]').click()
    wait_for(driver, lambda d: row_status(d, jazz) == "visible", message="restored again")
    assert [(e["action"], e["reason"]) for e in desk.audit(jazz)] == [
        ("restore", None), ("hide", "spam"), ("restore", "mistake"), ("hide", "spam")]

    # The same in bulk.
    bulk = [desk.id("Noodle bar review"), desk.id("Yoga class in the square")]
    for post_id in bulk:
        driver.find_element(By.CSS_SELECTOR, f'#notes-table tr[data-id="{post_id}"] input.pick').click()
    driver.find_element(By.ID, "bulk-reason").clear()
    driver.find_element(By.ID, "bulk-reason").send_keys("bulk spam")
    driver.find_element(By.ID, "hide-selected").click()
    wait_for(driver, lambda d: "Hid 2 notes" in status(d) and all(row_status(d, i) == "hidden" for i in bulk), message="bulk hidden")
    for post_id in bulk:
        driver.find_element(By.CSS_SELECTOR, f'#notes-table tr[data-id="{post_id}"] input.pick').click()
    driver.find_element(By.ID, "restore-reason").send_keys("bulk mistake")
    driver.find_element(By.ID, "restore-selected").click()
    wait_for(driver, lambda d: "Restored 2 notes" in status(d) and all(row_status(d, i) == "visible" for i in bulk), message="bulk restored")
    for post_id in bulk:
        assert [(e["action"], e["reason"]) for e in desk.audit(post_id)] == [("restore", "bulk mistake"), ("hide", "bulk spam")]

    # Undo: for a few seconds after a hide, the status line restores it with the reason "undo".
    bread = desk.id("Free bread at the bakery")
    driver.find_element(By.ID, "bulk-reason").clear()
    driver.find_element(By.ID, "bulk-reason").send_keys("oops")
    driver.find_element(By.CSS_SELECTOR, f'button[aria-label="Hide note {bread}"]').click()
    undo = wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#status button.status-action"), message="the Undo button")
    assert undo.text == "Undo" and row_status(driver, bread) == "hidden"
    undo.click()
    wait_for(driver, lambda d: f"Undone: restored note {bread}" in status(d) and row_status(d, bread) == "visible", message="undone")
    assert desk.status("Free bread at the bakery") == "visible"
    assert [(e["action"], e["reason"]) for e in desk.audit(bread)] == [("restore", "undo"), ("hide", "oops")]
    # The offer lasts seconds, not for ever; scrolled down the list, it floats on screen.
    hide_bread = driver.find_element(By.CSS_SELECTOR, f'button[aria-label="Hide note {bread}"]')
    driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    if driver.execute_script("return document.getElementById('status').getBoundingClientRect().bottom") >= 0:
        driver.execute_script("document.body.style.paddingBottom = '3000px'; window.scrollTo(0, document.body.scrollHeight)")
    driver.execute_script("arguments[0].click()", hide_bread)
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#status button.status-action"), message="Undo again")
    box = driver.execute_script("const r = document.querySelector('#status button.status-action').getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight]")
    assert 0 <= box[0] and box[1] <= box[2], f"the Undo button is off screen: {box}"
    wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#status button.status-action"), timeout=12, message="the Undo offer ends")
    assert "floating" not in driver.find_element(By.ID, "status").get_attribute("class")
    driver.execute_script("document.body.style.paddingBottom = ''; window.scrollTo(0, 0)")
    assert desk.status("Free bread at the bakery") == "hidden"

    # A late answer of another view does not leave its line: Beacons, then at once Notes.
    driver.find_element(By.ID, "tab-beacons").click()
    driver.find_element(By.ID, "tab-notes").click()
    wait_for(driver, lambda d: "notes match" in status(d))
    time.sleep(0.5)  # a late answer of the beacons' view would overwrite the status within this
    assert "beacon" not in status(driver), status(driver)

    # Audit entries open what they concern: a note (visible, and deleted), a beacon, a place.
    show(driver, "audit")
    driver.find_element(By.CSS_SELECTOR, f'#audit-table button[aria-label="Show note {jazz}"]').click()
    wait_for(driver, lambda d: d.find_element(By.ID, "view-notes").is_displayed() and note_ids(d) == [jazz], message="the audited note alone")
    assert driver.find_element(By.ID, "tab-notes").get_attribute("aria-selected") == "true"
    assert f"note {jazz} only" in driver.find_element(By.ID, "note-focus").text
    winter = desk.id("Old winter note")
    show(driver, "audit")
    driver.find_element(By.CSS_SELECTOR, f'#audit-table button[aria-label="Show note {winter}"]').click()
    wait_for(driver, lambda d: note_ids(d) == [winter] and row_status(d, winter) == "deleted", message="the deleted note, found")
    show(driver, "audit")
    driver.find_element(By.CSS_SELECTOR, f'#audit-table button[aria-label="Show beacon {BEACON}"]').click()
    wait_for(driver, lambda d: d.find_element(By.ID, "view-beacons").is_displayed()
             and d.find_element(By.ID, "b-name").get_attribute("value") == "Hall door", message="the audited beacon")
    assert driver.find_element(By.ID, "b-uuid").get_attribute("value") == BEACON.split(":")[0]
    show(driver, "audit")
    driver.find_element(By.CSS_SELECTOR, '#audit-table button[aria-label="Show place town-hall"]').click()
    wait_for(driver, lambda d: d.find_element(By.ID, "view-places").is_displayed()
             and d.find_element(By.ID, "p-slug").get_attribute("value") == "town-hall", message="the audited place")
    assert driver.find_element(By.ID, "place-form-heading").text == "Editing Town hall"

    # The filtered list as CSV: downloaded by the page (with the token), and from the API.
    downloads = tempfile.mkdtemp(prefix="noticeboard-csv-")
    try:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
        show(driver, "notes")
        driver.find_element(By.ID, "f-tag").send_keys("food")
        driver.find_element(By.CSS_SELECTOR, "#note-filters button[type=submit]").click()
        food = sorted(note["id"] for note in desk.notes.values() if note["tag"] == "food")
        wait_for(driver, lambda d: sorted(note_ids(d)) == food, message="the food notes")
        driver.find_element(By.ID, "download-csv").click()
        # Chrome writes a .crdownload beside the file and renames it: done when the CSV, not empty, is all there is.
        def downloaded_csv(_driver):
            names = os.listdir(downloads)
            return len(names) == 1 and names[0].endswith(".csv") and os.path.getsize(os.path.join(downloads, names[0])) > 0
        wait_for(driver, downloaded_csv, message="the CSV file")
        [name] = os.listdir(downloads)
        assert name.startswith("noticeboard-notes-food-"), name
        with open(os.path.join(downloads, name), encoding="utf8", newline="") as handle:
            downloaded = list(csv.reader(handle))
    finally:
        shutil.rmtree(downloads, ignore_errors=True)
    assert downloaded[0] == CSV_HEADER
    rows = [dict(zip(CSV_HEADER, row)) for row in downloaded[1:]]
    assert sorted(int(row["id"]) for row in rows) == food
    assert all(row["tag"] == "food" for row in rows)
    assert {row["message"] for row in rows} == {message for message, note in desk.notes.items() if note["tag"] == "food"}
    fetched = requests.get(desk.server.url + "/api/v1/moderation/posts.csv", params={"tag": "food"}, headers=desk.auth, timeout=30)
    assert fetched.headers["content-type"].startswith("text/csv")
    assert list(csv.reader(io.StringIO(fetched.text))) == downloaded
    assert requests.get(desk.server.url + "/api/v1/moderation/posts.csv", timeout=30).status_code == 401
    assert script_errors(driver) == []


PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}


def test_phone_cards_and_no_serious_accessibility_violations_on_any_view(desk, browser_factory):
    driver = browser_factory(1280, 900)
    log_in(driver, desk)
    for view in VIEWS:
        show(driver, view)
        if view == "dashboard":  # the charts' tables open too
            for table_id in ("table-activity", "table-tags", "table-cells"):
                open_table(driver, table_id)
        assert serious_violations(driver) == [], (view, "desktop")
        driver.execute_script("window.scrollTo(0, 0)")
        full_screenshot(driver, f"dashboard-desktop-{view}")

    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    driver.refresh()  # the session stays: the dashboard again, at phone size
    wait_for_dashboard(driver, "day")
    for view in VIEWS:
        show(driver, view)
        if view == "dashboard":
            for table_id in ("table-activity", "table-tags", "table-cells"):
                open_table(driver, table_id)
        width = driver.execute_script("return [document.documentElement.scrollWidth, document.documentElement.clientWidth, window.innerWidth]")
        assert width[0] <= width[1] and width[1] <= PHONE["width"], (view, width)
        assert serious_violations(driver) == [], (view, "phone")
        if view == "notes":
            # Cards: each note a block within the screen, every action in reach.
            cards = driver.execute_script("""
                return [...document.querySelectorAll('#notes-table tbody tr')].map((row) => {
                  const box = row.getBoundingClientRect();
                  const buttons = [...row.querySelectorAll('button, input')].map((b) => b.getBoundingClientRect());
                  return {id: row.dataset.id, status: row.querySelector('td.status').textContent,
                          display: getComputedStyle(row).display, left: box.left, right: box.right,
                          buttons: buttons.length, reachable: buttons.every((b) => b.left >= 0 && b.right <= innerWidth && b.width > 0)};
                });""")
            assert len(cards) == len(desk.notes)
            for card in cards:
                assert card["display"] != "table-row" and card["left"] >= 0 and card["right"] <= PHONE["width"], card
                assert card["buttons"] >= (1 if card["status"] == "deleted" else 3) and card["reachable"], card
            labels = driver.execute_script("""return getComputedStyle(document.querySelector('#notes-table tbody td.when'), '::before').content""")
            assert "When" in labels
        driver.execute_script("window.scrollTo(0, 0)")
        full_screenshot(driver, f"dashboard-phone-{view}")
    assert script_errors(driver) == []
