"""Languages (issue 19): English, 繁體中文 and 简体中文 on the public page and the moderation page,
switched on the fly and kept in localStorage, the browser's language by default; every string from
a catalog (a key missing in any language fails here); dates, relative times, distances and compass
words through Intl; `lang` on the page and on each note's text."""
import datetime
import glob
import os
import re

import pytest
from selenium.webdriver.common.by import By

from pages import (WEB, iso, js, list_messages, offset, screenshot, serious, set_language, start_board, status, stop_board,
                   wait_for)

HERE = (25.0330, 121.5654)
EMPTY = (25.2, 121.9)
PASSWORD = "i18n-password-123"
CHINESE = "今天的湯很好喝，大家快來"
ENGLISH = "Soup of the day is great"


SEEDED_AT = datetime.datetime.now(datetime.timezone.utc)


def minutes_ago_now():
    """The minutes the first note's age may be shown as now (the module can run past a minute)."""
    minutes = int((datetime.datetime.now(datetime.timezone.utc) - SEEDED_AT).total_seconds() // 60) + 5
    return [minutes, minutes + 1]


@pytest.fixture(scope="module")
def board():
    global SEEDED_AT
    now = SEEDED_AT = datetime.datetime.now(datetime.timezone.utc)
    rows = [
        {"lat": offset(HERE, 40, 0)[0], "lon": HERE[1], "message": CHINESE, "tag": "美食", "createdAt": iso(now - datetime.timedelta(minutes=5))},
        {"lat": offset(HERE, -30, 0)[0], "lon": HERE[1], "message": ENGLISH, "tag": "food", "createdAt": iso(now - datetime.timedelta(days=2))},
    ]
    server, data_dir = start_board(rows, moderator=("lin", PASSWORD))
    try:
        yield server
    finally:
        stop_board(server, data_dir)


def catalogs(driver, part=""):
    """The three catalogs, each imported on its own (the page itself loads only the chosen one);
    `part="moderate/"`: the moderation page's own words."""
    return driver.execute_async_script("""
        const [part, done] = arguments;
        const codes = ['en', 'zh-Hant', 'zh-Hans'];
        Promise.all(codes.map((code) => import(`/i18n/${part}${code}.js`)))
          .then((modules) => done(Object.fromEntries(modules.map((module, index) => [codes[index], module.default]))))
          .catch((error) => done(String(error)));""", part)


def squeeze(text):
    """Text without spaces: Intl puts (narrow) spaces between number and unit in some languages only."""
    return re.sub(r"\s", "", text)


def placeholders(text):
    return sorted(set(re.findall(r"\{(\w+)\}", text if isinstance(text, str) else " ".join(text.values()))))


def keys_in_sources():
    """Every key the code asks for: t("…") in the scripts, data-i18n and data-i18n-attr in the pages."""
    used = set()
    for path in glob.glob(os.path.join(WEB, "**", "*.js"), recursive=True) + glob.glob(os.path.join(WEB, "*.js")):
        if os.sep + "i18n" + os.sep in path:
            continue
        with open(path, encoding="utf8") as handle:
            used |= set(re.findall(r"\bt\(\"([^\"]+)\"", handle.read()))
    for path in (os.path.join(WEB, "index.html"), os.path.join(WEB, "moderate", "index.html")):
        with open(path, encoding="utf8") as handle:
            text = handle.read()
        used |= set(re.findall(r'data-i18n="([^"]+)"', text))
        for pairs in re.findall(r'data-i18n-attr="([^"]+)"', text):
            used |= {pair.split(":")[1] for pair in pairs.split(";")}
    return used


def test_every_key_is_in_every_language(board, browsers):
    driver = browsers.start("desktop", where=HERE)
    driver.get(board.url + "/")
    page, moderation = catalogs(driver), catalogs(driver, "moderate/")
    assert isinstance(page, dict) and isinstance(moderation, dict), (page, moderation)
    # A visitor's catalog holds none of the moderators' words; the moderation page adds them.
    assert not [key for key in page["en"] if key.startswith("mod.")]
    assert moderation["en"] and all(key.startswith("mod.") for key in moderation["en"])
    found = {code: {**page[code], **moderation[code]} for code in page}
    assert set(found) == {"en", "zh-Hant", "zh-Hans"}
    english = found["en"]
    for language in ("zh-Hant", "zh-Hans"):
        missing = set(english) - set(found[language])
        extra = set(found[language]) - set(english)
        assert not missing and not extra, (language, sorted(missing), sorted(extra))
        for key, text in english.items():
            assert placeholders(found[language][key]) == placeholders(text), (language, key)
            assert found[language][key], (language, key)
    used = keys_in_sources()
    assert len(used) > 150
    assert sorted(used - set(english)) == []
    # The compass words, the error sentences for each field and each rate limit are asked for by built names.
    for word in ("north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"):
        assert f"compass.{word}" in english
    for action in ("posts", "likes", "reports", "requests"):
        assert f"error.rateLimited.{action}" in english


def test_the_browser_language_is_the_default_and_a_choice_is_kept(board, browsers):
    taiwan = browsers.start("phone", where=HERE, language="zh-TW", accept_languages="zh-TW,zh")
    taiwan.get(f"{board.url}/?view=list&lat={HERE[0]}&lon={HERE[1]}")
    wait_for(taiwan, lambda d: js(d, "return document.documentElement.lang") == "zh-Hant", message="Traditional from zh-TW")
    assert taiwan.find_element(By.ID, "tab-list").text == "我的附近"
    china = browsers.start("phone", where=HERE, language="zh-CN", accept_languages="zh-CN,zh")
    china.get(f"{board.url}/?view=list&lat={HERE[0]}&lon={HERE[1]}")
    wait_for(china, lambda d: js(d, "return document.documentElement.lang") == "zh-Hans", message="Simplified from zh-CN")
    assert china.find_element(By.ID, "tab-look").text == "环顾四周"
    # A choice beats the browser's language, and survives a reload.
    set_language(china, "en")
    china.refresh()
    wait_for(china, lambda d: js(d, "return document.documentElement.lang") == "en")
    assert china.find_element(By.ID, "tab-list").text == "Around me"


def test_switching_on_the_fly_localises_everything_and_marks_note_languages(board, browsers):
    driver = browsers.start("phone", where=HERE)
    driver.get(f"{board.url}/?view=list&lat={HERE[0]}&lon={HERE[1]}&radius=200")
    wait_for(driver, lambda d: sorted(list_messages(d)) == sorted([CHINESE, ENGLISH]))
    langs = js(driver, "return Object.fromEntries([...document.querySelectorAll('#posts .message')].map(e => [e.textContent, e.lang]))")
    assert langs == {CHINESE: "zh", ENGLISH: ""}
    titles = js(driver, "return [...document.querySelectorAll('#posts .note-title')].map(e => e.textContent)")
    assert any(any(f"{n} minutes ago" in title for n in minutes_ago_now()) and "40 m, north" in title for title in titles), titles
    assert any("2 days ago" in title for title in titles), titles
    screenshot(driver, "i18n-phone-list-en")

    expectations = {
        "zh-Hant": {"tab": "我的附近", "ago": "{n} 分鐘前", "distance": "40 公尺，北方", "status": "你附近有 2 則留言。", "filters": "篩選"},
        "zh-Hans": {"tab": "我的附近", "ago": "{n}分钟前", "distance": "40 米，北方", "status": "你附近有 2 则留言。", "filters": "筛选"},
    }
    for code, expected in expectations.items():
        set_language(driver, code)
        wait_for(driver, lambda d: squeeze(status(d)) == squeeze(expected["status"]), message=f"the status in {code}")
        assert driver.find_element(By.ID, "tab-list").text == expected["tab"]
        assert driver.find_element(By.ID, "filters-toggle").text.startswith(expected["filters"])
        titles = js(driver, "return [...document.querySelectorAll('#posts .note-title')].map(e => e.textContent)")
        assert any(squeeze(expected["ago"].format(n=n)) in squeeze(title) for n in minutes_ago_now() for title in titles), titles
        assert any(squeeze(expected["distance"]) in squeeze(title) for title in titles), titles
        # On a Chinese page, English text is marked English so a screen reader does not read it with a Chinese voice.
        langs = js(driver, "return Object.fromEntries([...document.querySelectorAll('#posts .message')].map(e => [e.textContent, e.lang]))")
        assert langs == {CHINESE: "zh", ENGLISH: "en"}
        # A preset tag is said in the language with its stored name beside it, so it never reads
        # like the people's own tag "美食"; that one stays as written.
        tags = js(driver, "return [...document.querySelectorAll('#posts .tag')].map(e => e.textContent)")
        assert sorted(tags) == ["美食", "美食 · food"], tags
        # No English words left in the page's own text (notes and tags are the people's own).
        own = js(driver, """return [...document.querySelectorAll('body *')].filter((e) => e.offsetParent !== null && !e.closest('.note, .chip, #language, .leaflet-container, .count'))
            .flatMap((e) => [...e.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent.trim())).filter(Boolean)""")
        english = [text for text in own if re.search(r"[A-Za-z]{3,}", text) and "NoticeBoard" not in text]
        assert english == [], english
        screenshot(driver, f"i18n-phone-list-{code}")
        driver.find_element(By.ID, "tab-look").click()
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#look-notes li"), message="look around")
        assert re.fullmatch(r"0° 北", driver.find_element(By.ID, "facing-readout").text)
        screenshot(driver, f"i18n-phone-look-{code}")
        driver.find_element(By.ID, "tab-list").click()
    # An empty place, in Chinese.
    driver.get(f"{board.url}/?view=list&lat={EMPTY[0]}&lon={EMPTY[1]}&radius=200")
    wait_for(driver, lambda d: d.find_element(By.ID, "list-empty").is_displayed())
    assert squeeze(driver.find_element(By.ID, "list-empty-text").text) == "200米内还没有留言：留下第一则吧。"
    screenshot(driver, "i18n-phone-empty-zh-Hans")
    violations = serious(driver)
    assert violations == [], violations
    set_language(driver, "en")


def test_the_moderation_page_speaks_each_language(board, browsers):
    driver = browsers.start("desktop")
    driver.get(board.url + "/moderate")
    set_language(driver, "zh-Hant")
    assert driver.find_element(By.ID, "login-heading").text == "登入"
    assert driver.title == "NoticeBoard 管理"
    driver.find_element(By.ID, "username").send_keys("lin")
    driver.find_element(By.ID, "password").send_keys("wrong-password")
    driver.find_element(By.CSS_SELECTOR, "#login button[type=submit]").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "login-error").text == "使用者名稱或密碼錯誤。")
    driver.find_element(By.ID, "password").clear()
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "#login button[type=submit]").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "tab-notes").is_displayed())
    assert [tab.text for tab in driver.find_elements(By.CSS_SELECTOR, "#mod-tabs [role=tab]")] == ["總覽", "留言", "稽核紀錄", "信標", "地點"]
    assert driver.find_element(By.ID, "who-name").text == "已登入：lin"
    screenshot(driver, "i18n-moderation-zh-Hant")
    violations = serious(driver)
    assert violations == [], violations
    set_language(driver, "zh-Hans")
    assert [tab.text for tab in driver.find_elements(By.CSS_SELECTOR, "#mod-tabs [role=tab]")] == ["总览", "留言", "审核纪录", "信标", "地点"]
    screenshot(driver, "i18n-moderation-zh-Hans")
    set_language(driver, "en")
    assert driver.find_element(By.ID, "tab-audit").text == "Audit log"


def test_words_already_on_screen_change_language_too(board, browsers):
    """An error under the post form, and an open thread's reply (its badge, its time) and its
    "Reply posted.", are said again in the language chosen afterwards."""
    driver = browsers.start("phone", where=HERE)
    driver.get(f"{board.url}/?view=post&lat={HERE[0]}&lon={HERE[1]}&radius=200")
    texts = catalogs(driver)
    driver.find_element(By.ID, "post-button").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "message-error").text == texts["en"]["compose.empty"])
    set_language(driver, "zh-Hant")
    assert driver.find_element(By.ID, "message-error").text == texts["zh-Hant"]["compose.empty"]
    set_language(driver, "en")

    driver.get(f"{board.url}/?view=list&lat={HERE[0]}&lon={HERE[1]}&radius=200")
    wait_for(driver, lambda d: ENGLISH in list_messages(d))
    js(driver, "arguments[0].click()", driver.find_element(By.XPATH, f"//li[.//*[contains(@class,'message')][text()='{ENGLISH}']]//button[contains(@class,'replies')]"))
    wait_for(driver, lambda d: d.find_element(By.ID, "thread").get_attribute("open") is not None, message="the thread")
    driver.find_element(By.ID, "reply-message").send_keys("Agreed")
    driver.find_element(By.ID, "reply-send").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#replies .reply .badge.you"), message="the reply, marked as mine")
    assert driver.find_element(By.ID, "thread-status").text == texts["en"]["thread.posted"]
    english_date = driver.find_element(By.CSS_SELECTOR, "#replies .reply time").text
    set_language(driver, "zh-Hans")
    assert driver.find_element(By.CSS_SELECTOR, "#replies .reply .badge.you").text == texts["zh-Hans"]["thread.you"]
    assert driver.find_element(By.ID, "thread-status").text == texts["zh-Hans"]["thread.posted"]
    # The reply's time is relative, as a note's ("just now" → "刚刚"), its full date in the title.
    chinese_date = driver.find_element(By.CSS_SELECTOR, "#replies .reply time").text
    assert chinese_date != english_date and re.search(r"[\u4e00-\u9fff]", chinese_date), (english_date, chinese_date)
    assert re.search(r"[年月日]", driver.find_element(By.CSS_SELECTOR, "#replies .reply time").get_attribute("title"))
    set_language(driver, "en")
    # American English writes the month first.
    assert re.match(r"[A-Z][a-z]{2} \d{1,2}, \d{4}", driver.find_element(By.CSS_SELECTOR, "#replies .reply time").get_attribute("title"))
    # "Reply posted." is about the reply: turning to share the note takes it away.
    driver.find_element(By.ID, "share-note").click()
    assert driver.find_element(By.ID, "thread-status").text == ""

    # A British phone: the page's English words, its dates as British English writes them (the day first).
    british = browsers.start("phone", where=HERE, accept_languages="en-GB,en")
    british.get(f"{board.url}/?view=list&lat={HERE[0]}&lon={HERE[1]}&radius=200")
    wait_for(british, lambda d: ENGLISH in list_messages(d))
    assert js(british, "return document.documentElement.lang") == "en"
    title = british.find_element(By.CSS_SELECTOR, "#posts li[data-id] time").get_attribute("title")
    assert re.match(r"\d{1,2} [A-Z][a-z]{2} \d{4}", title), title
