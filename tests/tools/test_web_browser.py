"""The web page in a real browser: headless Chromium driven by selenium.

It plays a whole game by clicking (a seed where the first card is a wild that this seat
colours, and the ``greedy`` opponent, who plays wilds first, holds a Wild Draw Four: so a
colour choice and a challenge are asked), opens the game's log as a replay and steps it
forwards and backwards, and watches a bot game; screenshots go to the test's tmp dir (and to
``$UNO_WEB_SCREENSHOTS`` if set: docs/images/ holds them, made with 256 colours). The layout
tests play whole games (classic, tmnt, house; 3-4 players) at 1400x900, 1280x657 (a 1280x800
screen less the browser's bars) and 390x844 (a phone) and measure, at every decision, that
the page never scrolls sideways (``scrollWidth`` against ``clientWidth``) and that the hand,
the prompt and every choice are on the screen. Others: a whole game by keyboard alone, the
agent panel of a watched checkpoint seat (and of that game replayed), and the set-up greying out a checkpoint that does
not fit.

Needs the distribution's ``chromium`` and ``chromedriver`` (Debian: ``apt-get install chromium
chromium-driver``) and selenium; skipped without them. The driver path is passed explicitly
and Selenium Manager is kept offline, so nothing is downloaded at test time.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

pytest.importorskip("starlette")
selenium = pytest.importorskip("selenium")
uvicorn = pytest.importorskip("uvicorn")

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

import uno_env  # noqa: E402
from uno_env.game import cards as C  # noqa: E402
from uno_env.game.engine import COLOR  # noqa: E402
from uno_env.tools.gamelog_read import read_log  # noqa: E402
from uno_env.tools.gamelog_replay import replay  # noqa: E402
from uno_env.tools.web.server import allowed_hosts, create_app  # noqa: E402

from helpers import web_server  # noqa: E402

pytestmark = pytest.mark.browser
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _find(names: tuple[str, ...], paths: tuple[str, ...]) -> str | None:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return next((p for p in paths if os.path.exists(p)), None)


CHROMIUM = _find(("chromium", "chromium-browser"), ("/usr/bin/chromium", "/usr/lib/chromium/chromium"))
CHROMEDRIVER = _find(("chromedriver",), ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"))


@pytest.fixture
def server(tmp_path):
    """uvicorn serving the app on a free port, in a thread of this process; it answers requests
    naming its loopback address only (as ``uno-serve`` does)."""
    logs = tmp_path / "logs"
    with web_server(lambda port: create_app(log_dir=str(logs), hosts=allowed_hosts("127.0.0.1"))) as url:
        yield url, logs


@pytest.fixture
def browser(monkeypatch):
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip("needs chromium and chromedriver (apt-get install chromium chromium-driver)")
    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager must never download a browser
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1400,900", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


class Page:
    def __init__(self, driver, shots):
        self.d = driver
        self.shots = shots
        self.saved: list[str] = []

    def state(self) -> str:
        return self.d.find_element(By.TAG_NAME, "body").get_attribute("data-state")

    def wait_state(self, *states: str, timeout: float = 30) -> str:
        WebDriverWait(self.d, timeout).until(lambda d: self.state() in states)
        return self.state()

    def wait_for(self, css: str, timeout: float = 15):
        WebDriverWait(self.d, timeout).until(lambda d: d.find_elements(By.CSS_SELECTOR, css))
        return self.d.find_elements(By.CSS_SELECTOR, css)

    def all(self, css: str):
        """The displayed elements matching ``css`` (again if the page re-rendered meanwhile)."""
        for _ in range(20):
            try:
                return [e for e in self.d.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()]
            except StaleElementReferenceException:
                time.sleep(0.05)
        raise AssertionError(f"{css} keeps changing")

    def shot(self, name: str) -> None:
        for folder in self.shots:
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, f"{name}.png")
            assert self.d.save_screenshot(path)
            self.saved.append(path)

    def no_pause(self) -> None:
        self.d.execute_script(
            "const p = document.getElementById('pause'); p.value = 0;"
            "p.dispatchEvent(new Event('input'));")


def open_page(browser, url: str, tmp_path) -> Page:
    """The page at ``url``, its set-up built, no pause between moves; screenshots to the
    test's tmp dir and ``$UNO_WEB_SCREENSHOTS`` if set."""
    shots = [str(tmp_path / "shots")] + ([os.environ["UNO_WEB_SCREENSHOTS"]]
                                         if os.environ.get("UNO_WEB_SCREENSHOTS") else [])
    page = Page(browser, shots)
    browser.get(url + "/")
    page.wait_state("setup")
    page.no_pause()
    return page


def colour_then_challenge_seed() -> int:
    """The first seed whose 2-player classic deal turns a wild for seat 0 to colour while
    seat 1 holds a Wild Draw Four and no plain wild (so greedy plays the Draw Four first)."""
    env = uno_env.raw_env(rules="classic", num_players=2)
    for seed in range(100_000):
        env.reset(seed=seed)
        s = env.unwrapped.game_state
        if s.phase == COLOR and s.actor == 0 and s.hands[1, C.WILD_DRAW4] and not s.hands[1, C.WILD]:
            return seed
    raise AssertionError("no such seed")


def test_play_a_whole_game_by_clicking_then_replay_and_watch(server, browser, tmp_path):
    url, logs = server
    page = open_page(browser, url, tmp_path)
    d = browser
    Select(d.find_element(By.CSS_SELECTOR, "#agents select")).select_by_value("greedy")
    seed = colour_then_challenge_seed()
    d.find_element(By.ID, "seed").send_keys(str(seed))
    d.find_element(By.ID, "start").click()

    # the first card is a wild: this seat chooses its colour
    assert page.wait_state("input") == "input"
    swatches = page.all("#choices button.color")
    assert [b.get_attribute("data-name") for b in swatches] == \
        ["color red", "color yellow", "color green", "color blue"]
    assert "choose the colour" in d.find_element(By.ID, "prompt").text
    page.shot("colour-choice")
    swatches[2].click()

    challenged = False
    wild_colours = 0
    clicks = 0
    while page.wait_state("input", "over") == "input":
        clicks += 1
        assert clicks < 400, "the game does not end"
        challenge = page.all("#choices button.challenge")
        if challenge:
            assert "Wild Draw Four" in d.find_element(By.ID, "prompt").text
            if not challenged:
                page.shot("challenge")
            challenge[0].click()
            challenged = True
            continue
        playable = page.all("#hand .card.playable")
        if playable:
            playable[0].click()
            if page.all("#picker .swatches button"):  # a wild: choose its colour
                page.all("#picker .swatches button")[0].click()
                wild_colours += 1
            if clicks == 3:
                page.wait_state("input", "over")
                page.shot("play")
            continue
        page.all("#choices button")[0].click()
    assert challenged, "the challenge was never asked"
    moves = [li.text for li in page.all("#log li")]
    callout = d.find_element(By.ID, "last-move").text.split(" \u2192 ")
    assert callout and all(part in moves for part in callout), (callout, moves[-5:])
    banner = d.find_element(By.ID, "banner").text
    assert "win" in banner
    assert d.find_element(By.ID, "color-chip").is_displayed()
    page.shot("game-over")

    # the game's log, written by --log-dir, replays exactly
    files = sorted(logs.glob("web-*.jsonl"))
    assert len(files) == 1
    log = read_log(str(files[0]))
    assert log.header["seed"] == seed and log.header["specs"] == ["human", "greedy"]
    assert log.end["status"] == "finished"
    replay(log)

    # replay it in the page: from the banner, then from the file picker
    d.find_element(By.ID, "banner-replay").click()
    page.wait_for("#controls-replay:not(.hidden)")
    WebDriverWait(d, 15).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-frame") == "0")
    d.find_element(By.ID, "tab-replay").click()
    d.find_element(By.ID, "log-file").send_keys(str(files[0]))
    d.find_element(By.ID, "open-log").click()

    def frame() -> int:
        return int(d.find_element(By.TAG_NAME, "body").get_attribute("data-frame") or -1)

    WebDriverWait(d, 15).until(lambda d: frame() == 0 and page.all("#felt .seat.open"))
    assert len(page.all("#felt .seat.open")) == 2  # every hand face up
    assert page.all("#seats-bottom .seat[data-seat='0']")  # the human's seat at the near side
    for _ in range(4):
        d.find_element(By.ID, "rp-next").click()
    WebDriverWait(d, 10).until(lambda d: frame() == 4)
    page.shot("replay")
    d.find_element(By.ID, "rp-prev").click()
    WebDriverWait(d, 10).until(lambda d: frame() == 3)
    d.find_element(By.ID, "rp-last").click()
    WebDriverWait(d, 10).until(lambda d: frame() == len(log.actions))
    assert "win" in d.find_element(By.ID, "banner").text

    # watch four bots play TMNT, every hand face up, step by step
    d.find_element(By.ID, "tab-watch").click()
    page.wait_state("setup")
    Select(d.find_element(By.ID, "rules")).select_by_value("tmnt")
    for _ in range(2):
        d.find_element(By.CSS_SELECTOR, "#agents button[title='one player more']").click()
    d.find_element(By.ID, "seed").clear()
    d.find_element(By.ID, "seed").send_keys("3")
    d.find_element(By.ID, "start").click()
    page.wait_state("idle", "over")
    for _ in range(8):
        d.find_element(By.ID, "watch-step").click()
        page.wait_state("idle", "over")
    assert len(page.all("#felt .seat.open")) == 4
    assert len(page.all("#log li")) >= 6
    page.shot("watch")
    assert all(os.path.getsize(p) > 10_000 for p in page.saved)


def test_page_plays_on_while_a_request_budget_leaves_the_others_to_move(browser, tmp_path):
    """A server whose requests play one decision each: the page keeps asking it to play on
    (``progress.waiting``) until this seat decides, so the game plays as usual."""
    with web_server(lambda port: create_app(max_decisions=1, hosts=allowed_hosts("127.0.0.1"))) as url:
        page = Page(browser, [str(tmp_path / "shots")])
        d = browser
        d.get(url + "/")
        page.wait_state("setup")
        page.no_pause()
        for _ in range(2):  # three opponents, then this seat plays last
            d.find_element(By.CSS_SELECTOR, "#agents button[title='one player more']").click()
        Select(d.find_element(By.ID, "seat")).select_by_value("3")
        d.find_element(By.ID, "seed").send_keys("12")
        d.find_element(By.ID, "start").click()
        for _ in range(6):  # six of this seat's decisions, each after the three others moved
            assert page.wait_state("input", "over") == "input"
            buttons = page.all("#choices button")
            assert buttons, "this seat's decision has choices"
            playable = page.all("#hand .card.playable")
            (playable or buttons)[0].click()
            if page.all("#picker .swatches button"):
                page.all("#picker .swatches button")[0].click()
        moves = [li.text for li in page.all("#log li")]
        assert all(any(f"player_{q}" in m for m in moves) for q in range(3)), moves


# ---------------------------------------------------------------------------- layout
# a desktop window, a 1280x800 screen less the browser's bars, a phone
SCREENS = [(1400, 900), (1280, 657), (390, 844)]
MEASURE_JS = """
const de = document.documentElement;
const box = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
const shown = (css) => [...document.querySelectorAll(css)].filter((e) => e.offsetParent !== null).map(box);
return {scroll_width: de.scrollWidth, client_width: de.clientWidth, scroll_y: window.scrollY,
        width: window.innerWidth, height: window.innerHeight,
        hand: shown('#hand .card'), choices: shown('#choices button'), prompt: shown('#prompt')};
"""


def tap(driver, element) -> None:
    """Click ``element`` near its left edge: in an overlapping hand the next card covers its
    middle, and a player taps the part that shows."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).move_to_element_with_offset(element, -element.size["width"] // 2 + 6, 0).click().perform()


def decide(driver, page: Page, on_picker=lambda: None) -> None:
    """This seat's decision: its first playable card (tapped), else its first choice; a wild's
    first colour in the picker (``on_picker()`` called first)."""
    playable = page.all("#hand .card.playable")
    if playable:
        tap(driver, playable[0])
    else:
        page.all("#choices button")[0].click()
    if page.all("#picker .swatches button"):
        on_picker()
        page.all("#picker .swatches button")[0].click()


def set_screen(driver, width: int, height: int) -> None:
    """The page's viewport exactly ``width`` x ``height`` CSS pixels (a phone's below 600)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def assert_fits(d, where: str) -> dict:
    m = d.execute_script(MEASURE_JS)
    assert m["scroll_width"] <= m["client_width"], f"{where}: the page scrolls sideways ({m})"
    return m


def assert_in_view(m: dict, key: str, where: str) -> None:
    for left, top, right, bottom in m[key]:
        assert left >= 0 and right <= m["width"] + 0.5, f"{where}: a {key} box is cut off sideways ({m})"
        assert top >= 0 and bottom <= m["height"] + 0.5, f"{where}: a {key} box is below the fold ({m})"


@pytest.mark.parametrize("rules,players", [("classic", 3), ("tmnt", 4), ("house", 4)])
@pytest.mark.parametrize("width,height", SCREENS, ids=[f"{w}x{h}" for w, h in SCREENS])
def test_the_table_fits_the_screen_through_a_whole_game(server, browser, tmp_path, width, height,
                                                        rules, players):
    """No horizontal scrolling on the set-up, table, replay and watch pages, and at every
    decision of a whole game the hand, the prompt and every choice are on the screen without
    scrolling."""
    url, logs = server
    d = browser
    set_screen(d, width, height)
    page = open_page(browser, url, tmp_path)
    assert_fits(d, "set-up")
    Select(d.find_element(By.ID, "rules")).select_by_value(rules)
    for _ in range(players - 2):
        d.find_element(By.CSS_SELECTOR, "#agents button[title='one player more']").click()
    d.find_element(By.ID, "seed").send_keys("7")
    d.find_element(By.ID, "start").click()
    decisions = 0
    while page.wait_state("input", "over") == "input":
        decisions += 1
        assert decisions < 400, "the game does not end"
        where = f"{width}x{height}, decision {decisions}"
        m = assert_fits(d, where)
        assert m["scroll_y"] == 0 and m["hand"] and m["prompt"], where
        for key in ("hand", "choices", "prompt"):
            assert_in_view(m, key, where)
        if decisions == 4:
            page.shot(f"web-table-{rules}-{width}x{height}")
        decide(d, page)
    assert decisions >= 4
    assert_fits(d, "game over")
    assert "win" in d.find_element(By.ID, "banner").text
    d.find_element(By.ID, "banner-replay").click()
    WebDriverWait(d, 15).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-frame") == "0")
    assert_fits(d, "replay")
    d.find_element(By.ID, "tab-watch").click()
    page.wait_state("setup")
    Select(d.find_element(By.ID, "rules")).select_by_value("tmnt")
    for _ in range(2):
        d.find_element(By.CSS_SELECTOR, "#agents button[title='one player more']").click()
    assert_fits(d, "watch set-up")
    d.find_element(By.ID, "start").click()
    for _ in range(4):
        page.wait_state("idle", "over")
        d.find_element(By.ID, "watch-step").click()
    page.wait_state("idle", "over")
    assert_fits(d, "watch")


RIM_JS = """
const box = (e) => e.getBoundingClientRect();
const f = box(document.getElementById('felt')), l = box(document.getElementById('me-label'));
const rim = Math.max(...(getComputedStyle(document.getElementById('felt')).boxShadow.match(/0px 0px 0px (\\d+)px inset/g) || [])
  .map((s) => parseInt(s.match(/(\\d+)px inset$/)[1], 10)));
return {felt: [f.left, f.top, f.right, f.bottom], label: [l.left, l.top, l.right, l.bottom], rim: rim,
        text: document.getElementById('me-label').textContent};
"""


@pytest.mark.parametrize("width,height", SCREENS + [(1280, 800)], ids=[f"{w}x{h}" for w, h in SCREENS + [(1280, 800)]])
def test_the_players_label_sits_inside_the_tables_rim(server, browser, tmp_path, width, height):
    """"you, player_0 \u00b7 7 cards" under the hand stays on the felt, clear of the wooden rim
    (the felt's inset shadow), at every screen: at 1280x800 it sat on the table's edge."""
    url, _ = server
    set_screen(browser, width, height)
    page = open_page(browser, url, tmp_path)
    browser.find_element(By.ID, "seed").send_keys("3")
    browser.find_element(By.ID, "start").click()
    assert page.wait_state("input", "over") == "input"
    m = browser.execute_script(RIM_JS)
    assert m["text"].startswith("you, player_0") and m["rim"] > 0, m
    left, top, right, bottom = m["felt"]
    l_left, l_top, l_right, l_bottom = m["label"]
    assert l_bottom <= bottom - m["rim"] - 2 and l_left >= left + m["rim"] and l_right <= right - m["rim"], m


def test_watch_shows_the_agent_panel_for_a_checkpoint_seat(browser, tmp_path):
    from helpers import random_checkpoint

    root = tmp_path / "checkpoints"
    random_checkpoint(root / "run" / "best", num_players=2, hidden=(32,), seed=3)
    app = lambda port: create_app(checkpoint_roots=[str(root)], hosts=allowed_hosts("127.0.0.1"))  # noqa: E731
    with web_server(app) as url:
        page = open_page(browser, url, tmp_path)
        d = browser
        d.find_element(By.ID, "tab-watch").click()
        first = Select(d.find_elements(By.CSS_SELECTOR, "#agents select")[0])
        spec = next(o.get_attribute("value") for o in first.options
                    if o.get_attribute("value").startswith("checkpoint:"))
        first.select_by_value(spec)
        d.find_element(By.ID, "seed").send_keys("4")
        d.find_element(By.ID, "start").click()
        assert not page.all("#thoughts")  # nothing decided yet
        for _ in range(12):
            page.wait_state("idle", "over")
            if page.all("#thoughts"):
                break
            d.find_element(By.ID, "watch-step").click()
        assert page.all("#thoughts"), "the panel never showed"
        assert "player_0 (best) thinks" in d.find_element(By.ID, "thoughts-title").text
        rows = page.all("#thoughts-list li")
        assert rows and len(page.all("#thoughts-list li.chosen")) == 1
        assert all("%" in r.get_attribute("aria-label") for r in rows)
        page.shot("web-watch-agent-panel")

        # the game played to its end and its log replayed: the panel at the frames where the
        # checkpoint seat decides
        err = d.execute_async_script(
            "const done = arguments[0];"
            "(async () => { while (!(await api('POST', `/api/games/${S.game}/step`, {seat: 'all', steps: 100})).view.over);"
            " const text = await api('GET', `/api/games/${S.game}/log`); selectTab('replay', true);"
            " await openReplay(text); })().then(() => done($('replay-error').textContent), (e) => done(String(e)));")
        assert not err, err
        WebDriverWait(d, 15).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-frame") == "0")
        frames = []
        for i in range(30):
            if page.all("#thoughts"):
                frames.append(i)
                assert "player_0 (best) thinks" in d.find_element(By.ID, "thoughts-title").text
                assert f"frame {i} " in d.find_element(By.ID, "thoughts-note").text
                assert len(page.all("#thoughts-list li.chosen")) == 1
            d.find_element(By.ID, "rp-next").click()
            WebDriverWait(d, 10).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-frame") == str(i + 1))
        assert frames, "the replay never showed the panel"
        assert len(frames) < 30, "the panel showed at the other seat's frames too"


def test_a_whole_game_is_playable_by_keyboard_alone(server, browser):
    """Tab reaches a playable card, Enter plays it; number keys pick the decision's n-th
    control (playable cards, then buttons; a wild's colours in its picker). Every control is
    labelled for a screen reader and a focused one shows an outline."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    url, _ = server
    page = Page(browser, [])
    d = browser
    d.get(url + "/")
    page.wait_state("setup")
    page.no_pause()
    d.find_element(By.ID, "seed").send_keys("7")
    d.find_element(By.ID, "seed").send_keys(Keys.ENTER)  # the form submits: Deal
    assert page.wait_state("input") == "input"
    keys = ActionChains(d)
    for _ in range(40):  # Tab until a control of the decision has the focus
        focused = d.switch_to.active_element
        if focused.get_attribute("aria-keyshortcuts"):
            break
        keys.send_keys(Keys.TAB).perform()
    assert focused.get_attribute("aria-keyshortcuts") == "1"
    assert focused.get_attribute("aria-label") or focused.text
    outline = d.execute_script("const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth];")
    assert outline[0] != "none" and outline[1] != "0px", outline
    for card in page.all("#hand .card"):
        assert card.get_attribute("aria-label")
    focused.send_keys(Keys.ENTER)
    decisions = 1
    while page.wait_state("input", "over") == "input":
        decisions += 1
        assert decisions < 400, "the game does not end"
        keys.send_keys("1").perform()
        if page.all("#picker .swatches button"):
            assert d.switch_to.active_element.get_attribute("aria-keyshortcuts") == "1"
            keys.send_keys("1").perform()
    assert "win" in d.find_element(By.ID, "banner").text
    assert decisions > 3


def test_the_set_up_greys_out_a_checkpoint_that_does_not_fit_before_deal(browser, tmp_path):
    """A checkpoint trained for two players of classic rules: offered for a two-player classic
    game, greyed out with the reason for three players or with stacking on, and Deal waits."""
    from helpers import random_checkpoint

    root = tmp_path / "checkpoints"
    random_checkpoint(root / "two", num_players=2, seed=1)
    app = lambda port: create_app(checkpoint_roots=[str(root)], hosts=allowed_hosts("127.0.0.1"))  # noqa: E731
    with web_server(app) as url:
        page = Page(browser, [])
        d = browser
        d.get(url + "/")
        page.wait_state("setup")

        def option():
            sel = d.find_elements(By.CSS_SELECTOR, "#agents select")[0]
            return next(o for o in sel.find_elements(By.TAG_NAME, "option")
                        if o.get_attribute("value").startswith("checkpoint:"))

        assert option().is_enabled() and "\u2014" not in option().text
        Select(d.find_elements(By.CSS_SELECTOR, "#agents select")[0]).select_by_value(option().get_attribute("value"))
        assert d.find_element(By.ID, "start").is_enabled()
        d.find_element(By.CSS_SELECTOR, "#agents button[title='one player more']").click()
        assert not option().is_enabled() and "trained for 2 players" in option().text
        assert not d.find_element(By.ID, "start").is_enabled()
        assert "trained for 2 players" in d.find_element(By.ID, "setup-error").text
        d.find_element(By.CSS_SELECTOR, "#agents button[title='one player less']").click()
        assert option().is_enabled() and d.find_element(By.ID, "start").is_enabled()
        d.find_element(By.CSS_SELECTOR, "[data-opt='stacking']").click()
        assert not option().is_enabled() and "trained with stacking=false" in option().text
        d.find_element(By.CSS_SELECTOR, "[data-opt='stacking']").click()
        d.find_element(By.ID, "start").click()  # it fits again: the game is dealt
        assert page.wait_state("input", "over") in ("input", "over")


def test_the_set_up_greys_out_a_pretrained_agent_that_does_not_fit_as_a_checkpoint(browser, tmp_path):
    """pretrained:classic-2p is a checkpoint too: for three players it is greyed out with the
    reason (it was offered, and Deal answered with a long error), and each shipped agent is
    offered once."""
    from uno_env.agents import shipped

    app = lambda port: create_app(checkpoint_roots=[os.path.join(ROOT, "checkpoints")],  # noqa: E731
                                  hosts=allowed_hosts("127.0.0.1"))
    with web_server(app) as url:
        page = Page(browser, [])
        d = browser
        d.get(url + "/")
        page.wait_state("setup")

        def options():
            sel = d.find_elements(By.CSS_SELECTOR, "#agents select")[0]
            return {o.get_attribute("value"): o for o in sel.find_elements(By.TAG_NAME, "option")}

        values = list(options())
        for name in shipped.SHIPPED:  # once each
            assert [v for v in values if v.rstrip("/").endswith(name)] == [f"pretrained:{name}"]
        assert options()["pretrained:classic-2p"].is_enabled()
        Select(d.find_elements(By.CSS_SELECTOR, "#agents select")[0]).select_by_value("pretrained:classic-2p")
        d.find_element(By.CSS_SELECTOR, "#agents button[title='one player more']").click()
        two = options()["pretrained:classic-2p"]
        assert not two.is_enabled() and "trained for 2 players" in two.text
        assert not options()["pretrained:classic-4p"].is_enabled()  # 3 players: neither fits
        assert not d.find_element(By.ID, "start").is_enabled()
        assert "pretrained:classic-2p is trained for 2 players" in d.find_element(By.ID, "setup-error").text


# ---------------------------------------------------------------------------- contrast
# WCAG 2 contrast of every piece of text shown against what lies behind it: the computed
# colour over its ancestors' backgrounds (a gradient: each of its stops, the worst counts).
# Card faces (role=img, named by aria-label), the logo and the direction arrows (aria-hidden: the
# direction is also written out) are pictures; a disabled control is exempt (WCAG 1.4.3).
CONTRAST_JS = """
const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
  const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
const lum = (c) => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
function behind(e) {
  const layers = [];
  for (let x = e; x; x = x.parentElement) {
    const s = getComputedStyle(x);
    const stops = (s.backgroundImage.match(/rgba?\\([^)]+\\)/g) || []).map(parse);
    const bg = parse(s.backgroundColor);
    if (stops.length) layers.push(stops);
    if (bg && bg[3] > 0) layers.push([bg]);
    if (bg && bg[3] === 1) break;
  }
  let under = [[255, 255, 255, 1]];
  for (const layer of layers.reverse()) under = under.flatMap((u) => layer.map((c) => over(c, u)));
  return under;
}
const out = [];
for (const e of document.querySelectorAll("body *")) {
  if (![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
  if (!e.getClientRects().length || getComputedStyle(e).visibility === "hidden") continue;
  if (e.closest(".card, .logo, [aria-hidden=true], :disabled, option, script, style, .hidden")) continue;
  const fg = parse(getComputedStyle(e).color);
  const worst = Math.min(...behind(e).map((b) => ratio(over(fg, b), b)));
  if (worst < arguments[0]) out.push({text: e.textContent.trim().slice(0, 40), css: e.tagName.toLowerCase() +
    (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().replace(/ +/g, ".") : ""),
    color: getComputedStyle(e).color, ratio: Math.round(worst * 100) / 100});
}
return out;
"""
MIN_CONTRAST = 4.5  # WCAG 2 AA for text


def assert_contrast(d, where: str, seen: set) -> None:
    d.execute_script("document.body.classList.add('no-anim')")  # a pulsing badge at full colour
    low = d.execute_script(CONTRAST_JS, MIN_CONTRAST)
    assert not low, f"{where}: text below {MIN_CONTRAST}:1 contrast: {low}"
    seen.add(where)


def test_every_text_on_the_page_has_at_least_4_5_to_1_contrast(server, browser, tmp_path):
    """The set-up, a table asking for a colour (the swatches) and for a challenge, the moves,
    the end-of-game banner, a replay and a watched game: every text shown is at least 4.5:1
    against its background."""
    url, _ = server
    page = open_page(browser, url, tmp_path)
    d = browser
    seen: set = set()
    assert_contrast(d, "set-up", seen)
    Select(d.find_element(By.CSS_SELECTOR, "#agents select")).select_by_value("greedy")
    d.find_element(By.ID, "seed").send_keys(str(colour_then_challenge_seed()))
    d.find_element(By.ID, "start").click()
    decisions = 0
    while page.wait_state("input", "over") == "input":
        decisions += 1
        assert decisions < 400, "the game does not end"
        if decisions <= 8 or page.all("#choices button.challenge"):
            assert_contrast(d, f"decision {decisions}", seen)
        decide(d, page, lambda: assert_contrast(d, "the colour picker", seen))
    assert_contrast(d, "game over", seen)
    d.find_element(By.ID, "banner-replay").click()
    WebDriverWait(d, 15).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-frame") == "0")
    assert_contrast(d, "replay", seen)
    d.find_element(By.ID, "tab-watch").click()
    page.wait_state("setup")
    d.find_element(By.ID, "start").click()
    for _ in range(4):
        page.wait_state("idle", "over")
        d.find_element(By.ID, "watch-step").click()
    page.wait_state("idle", "over")
    assert_contrast(d, "watch", seen)
    assert {"set-up", "decision 1", "game over", "replay", "watch"} <= seen


def test_seats_sit_around_the_table_in_turn_order_with_the_direction_shown(server, browser, tmp_path):
    """Player_0's view of four bots: player_0 at the bottom, players 1-3 left to right on an arc
    above (the middle one highest), the arrows between them and the ring round the discard
    pile pointing the way play goes, through a reverse."""
    url, _ = server
    page = open_page(browser, url, tmp_path)
    d = browser
    d.find_element(By.ID, "tab-watch").click()
    page.wait_state("setup")
    for _ in range(2):
        d.find_element(By.CSS_SELECTOR, "#agents button[title='one player more']").click()
    Select(d.find_element(By.ID, "watch-seat")).select_by_value("0")
    d.find_element(By.ID, "seed").send_keys("5")
    d.find_element(By.ID, "start").click()
    directions = set()
    for _ in range(200):
        if page.wait_state("idle", "over") == "over":
            break
        top = page.all("#seats .seat")
        assert [s.get_attribute("data-seat") for s in top] == ["1", "2", "3"]
        xs = [s.rect["x"] for s in top]
        ys = [s.rect["y"] for s in top]
        assert xs == sorted(xs) and ys[1] < ys[0] and ys[1] < ys[2], (xs, ys)  # left to right, an arc
        assert not page.all("#seats-bottom .seat")  # player_0's hand is the near side
        clockwise = "counter-clockwise" not in d.find_element(By.ID, "direction").text
        arrows = {a.text for a in page.all("#seats .turn-arrow")}
        assert arrows == ({"\u2192"} if clockwise else {"\u2190"}), (clockwise, arrows)
        assert ("ccw" in d.find_element(By.ID, "spin").get_attribute("class")) == (not clockwise)
        directions.add(clockwise)
        if directions == {True, False}:
            break
        d.find_element(By.ID, "watch-step").click()
    assert directions == {True, False}, "no reverse was played"
