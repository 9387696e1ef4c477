"""The moderation page in headless Chromium: log in, find a tag's notes of one week, hide and
restore them in one action, delete one with a reason, read the audit log, place a beacon."""
import datetime
import json
import os
import subprocess

import pytest
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import BINARY, Server
from test_browser import XSS, browser_factory, iso, screenshot, wait_for  # noqa: F401 (fixture)

WEB = os.path.join(os.path.dirname(__file__), "../../web")  # the page as edited, not the build's copy


@pytest.fixture
def moderated_board(data_dir, database_url, tmp_path):
    now = datetime.datetime.now(datetime.timezone.utc)
    last_year = now - datetime.timedelta(days=365)
    rows = [
        ("Soup of the day is great", "food", now - datetime.timedelta(minutes=2)),
        ("Buy cheap pills at example.com", "food", now - datetime.timedelta(minutes=1)),
        ("Old food note", "food", last_year),
        ("New scarf in the window", "fashion", now - datetime.timedelta(minutes=3)),
        (XSS, "food", now - datetime.timedelta(minutes=4)),
    ]
    path = os.path.join(tmp_path, "seed.ndjson")
    with open(path, "w") as handle:
        for message, tag, created in rows:
            handle.write(json.dumps({"lat": 51.5, "lon": -0.12, "message": message, "tag": tag, "createdAt": iso(created)}) + "\n")
    assert subprocess.run([BINARY, "import", path, "--database-url", database_url], capture_output=True, timeout=120).returncode == 0
    added = subprocess.run([BINARY, "moderator", "add", "alice", "--database-url", database_url], input="alice-password-123\n",
                           capture_output=True, text=True, timeout=120)
    assert added.returncode == 0, added.stderr
    server = Server(data_dir, "--tile-url", "/no-tiles/{z}/{x}/{y}.png", "--web-dir", WEB, database_url=database_url)
    for message in ("First note from this phone", "Second note from this phone"):
        assert server.post({"lat": 51.5, "lon": -0.12, "message": message, "tag": "lifestyle"}).status_code == 201
    yield server
    server.stop()


def table_messages(driver):
    # Read in one script: the table is re-rendered after every action.
    return driver.execute_script("return [...document.querySelectorAll('#notes-table tbody td.message')].map(c => c.textContent)")


def row_status(driver, message):
    return driver.execute_script("""
        const row = [...document.querySelectorAll('#notes-table tbody tr')].find(r => r.querySelector('td.message').textContent === arguments[0]);
        return row ? row.querySelector('td.status').textContent : null;""", message)


def test_a_moderator_finds_hides_restores_deletes_and_audits(moderated_board, browser_factory):
    server = moderated_board
    driver = browser_factory(1280, 900)
    driver.get(server.url + "/moderate")
    driver.find_element(By.ID, "username").send_keys("alice")
    driver.find_element(By.ID, "password").send_keys("wrong password")
    driver.find_element(By.CSS_SELECTOR, "#login button[type=submit]").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "login-error").text == "Wrong username or password.")
    driver.find_element(By.ID, "password").clear()
    driver.find_element(By.ID, "password").send_keys("alice-password-123")
    driver.find_element(By.CSS_SELECTOR, "#login button[type=submit]").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "view-dashboard").is_displayed(), message="the dashboard first")
    driver.find_element(By.ID, "tab-notes").click()
    wait_for(driver, lambda d: len(table_messages(d)) == 7, message="all notes")
    assert XSS in table_messages(driver) and driver.find_elements(By.CSS_SELECTOR, "#notes-table img") == []

    # Other notes from the same client: one click on a note's client pseudonym.
    driver.find_element(By.CSS_SELECTOR, "#notes-table tbody button.link").click()
    wait_for(driver, lambda d: sorted(table_messages(d)) == ["First note from this phone", "Second note from this phone"])
    assert driver.find_element(By.ID, "f-client").get_attribute("value") != ""
    driver.find_element(By.ID, "f-client").clear()

    # The notes tagged food of this week.
    driver.find_element(By.ID, "f-tag").send_keys("food")
    today = datetime.date.today()
    year, week, _ = today.isocalendar()
    driver.execute_script("const w = document.getElementById('f-week'); w.value = arguments[0]; w.dispatchEvent(new Event('change'));",
                          f"{year}-W{week:02d}")
    driver.find_element(By.CSS_SELECTOR, "#note-filters button[type=submit]").click()
    wait_for(driver, lambda d: sorted(table_messages(d)) == sorted(["Soup of the day is great", "Buy cheap pills at example.com", XSS]))
    screenshot(driver, "moderation")

    # Hide them all in one action, then restore them in one action.
    driver.find_element(By.ID, "select-all").click()
    driver.find_element(By.ID, "bulk-reason").send_keys("checking the week")
    driver.find_element(By.ID, "hide-selected").click()
    wait_for(driver, lambda d: "Hid 3 notes" in d.find_element(By.ID, "status").text)
    wait_for(driver, lambda d: all(row_status(d, m) == "hidden" for m in table_messages(d)))
    assert server.get("/api/v1/posts", params={"tag": "food"}).json()["posts"][0]["message"] == "Old food note"
    driver.find_element(By.ID, "select-all").click()
    driver.find_element(By.ID, "restore-selected").click()
    wait_for(driver, lambda d: "Restored 3 notes" in d.find_element(By.ID, "status").text)
    wait_for(driver, lambda d: all(row_status(d, m) == "visible" for m in table_messages(d)))

    # Delete the spam, with confirmation and a reason.
    spam = next(row for row in driver.find_elements(By.CSS_SELECTOR, "#notes-table tbody tr")
                if "pills" in row.find_element(By.CSS_SELECTOR, "td.message").text)
    spam_id = int(spam.get_attribute("data-id"))
    spam.find_element(By.CSS_SELECTOR, "button.danger").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "delete-dialog").is_displayed())
    driver.find_element(By.ID, "delete-confirm").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "delete-error").text == "A reason is required.")
    driver.find_element(By.ID, "delete-reason").send_keys("spam")
    driver.find_element(By.ID, "delete-confirm").click()
    wait_for(driver, lambda d: f"Deleted note {spam_id}" in d.find_element(By.ID, "status").text)
    assert server.get(f"/api/v1/posts/{spam_id}").status_code == 404

    # Other notes from the same client (every seeded note came from the import: no client).
    Select(driver.find_element(By.ID, "f-status")).select_by_value("deleted")
    driver.find_element(By.CSS_SELECTOR, "#note-filters button[type=submit]").click()
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#notes-table tbody tr")) == 1)
    assert row_status(driver, "") == "deleted"  # the text is erased for good

    driver.find_element(By.ID, "tab-audit").click()
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#audit-table tbody tr")) == 7)
    cells = [row.find_elements(By.TAG_NAME, "td")[2] for row in driver.find_elements(By.CSS_SELECTOR, "#audit-table tbody tr")]
    assert [cell.get_attribute("data-action") for cell in cells] == ["delete", "restore", "restore", "restore", "hide", "hide", "hide"]
    assert [cell.text for cell in cells] == ["Deleted", "Restored", "Restored", "Restored", "Hidden", "Hidden", "Hidden"]
    assert all(row.find_elements(By.TAG_NAME, "td")[1].text == "alice" for row in driver.find_elements(By.CSS_SELECTOR, "#audit-table tbody tr"))
    screenshot(driver, "moderation-audit")
    # An entry's note opens in Notes whatever its status (the deleted spam here), read by its id
    # from the moderation API: no request the server answers with 404.
    driver.get_log("browser")  # what was logged so far is not this step's
    driver.find_element(By.CSS_SELECTOR, f'#audit-table button[aria-label="Show note {spam_id}"]').click()
    wait_for(driver, lambda d: d.find_element(By.ID, "view-notes").is_displayed() and d.execute_script(
        "return [...document.querySelectorAll('#notes-table tbody tr')].map((row) => row.dataset.id)") == [str(spam_id)],
        message="the deleted note alone in Notes")
    assert row_status(driver, "") == "deleted"
    in_sight = driver.execute_script("""const box = document.querySelector('#notes-table tbody tr').getBoundingClientRect();
        return box.top >= 0 && box.bottom <= innerHeight;""")
    assert in_sight, "the note is brought into sight, not left below the filters"
    assert [entry["message"] for entry in driver.get_log("browser") if "/api/v1/" in entry["message"] and "404" in entry["message"]] == []

    # Beacons: type one in, place it by clicking the map, save; it is listed and public.
    driver.find_element(By.ID, "tab-beacons").click()
    wait_for(driver, lambda d: "0 beacons registered" in d.find_element(By.ID, "status").text)
    driver.find_element(By.ID, "b-uuid").send_keys("F7826DA6-4FA2-4E98-8024-BC5B71E0893E")
    driver.find_element(By.ID, "b-major").send_keys("1")
    driver.find_element(By.ID, "b-minor").send_keys("7")
    driver.find_element(By.ID, "b-floor").send_keys("2")
    driver.find_element(By.ID, "b-name").send_keys("Canteen door")
    driver.find_element(By.ID, "beacon-map").click()  # the centre of the map
    wait_for(driver, lambda d: d.find_element(By.ID, "b-lat").get_attribute("value") != "")
    driver.find_element(By.CSS_SELECTOR, "#beacon-form button[type=submit]").click()
    wait_for(driver, lambda d: "1 beacon registered" in d.find_element(By.ID, "status").text)
    beacon = server.get("/api/v1/beacons/f7826da6-4fa2-4e98-8024-bc5b71e0893e/1/7").json()
    assert beacon["name"] == "Canteen door" and beacon["floor"] == 2
    assert abs(beacon["lat"] - float(driver.find_element(By.ID, "b-lat").get_attribute("value"))) < 1e-6
    screenshot(driver, "moderation-beacons")

    # A beacon's name is text in its map tooltip, never markup.
    # Clicked away from the first beacon's marker (a click on a marker edits that beacon).
    ActionChains(driver).move_to_element_with_offset(driver.find_element(By.ID, "beacon-map"), 60, 40).click().perform()
    for field, value in [("b-uuid", "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"), ("b-major", "1"), ("b-minor", "8"),
                         ("b-name", '<img id="injected" src="x">')]:
        driver.find_element(By.ID, field).clear()
        driver.find_element(By.ID, field).send_keys(value)
    driver.find_element(By.CSS_SELECTOR, "#beacon-form button[type=submit]").click()
    wait_for(driver, lambda d: "2 beacons registered" in d.find_element(By.ID, "status").text or d.find_element(By.ID, "beacon-error").text)
    assert driver.find_element(By.ID, "beacon-error").text == "", driver.find_element(By.ID, "beacon-error").text
    def hover_each_marker(d):
        for marker in d.find_elements(By.CSS_SELECTOR, "#beacon-map path.leaflet-interactive"):
            ActionChains(d).move_to_element(marker).perform()
            if any('<img id="injected"' in tip.text for tip in d.find_elements(By.CSS_SELECTOR, ".leaflet-tooltip")):
                return True
        return False
    wait_for(driver, hover_each_marker)
    assert driver.find_elements(By.ID, "injected") == []

    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text
    driver.find_element(By.ID, "logout").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "login").is_displayed())
