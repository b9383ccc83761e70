"""The domino web page, opened in Debian's headless Chromium: faces, the answer checkbox (DOM and
pixels) and the print styles."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest

from tessera.models.domino import load_domino
from tessera.models.domino_html import pip_positions, render_html
from tests._paths import run_cli

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ANSWER_RGB = (0xB3, 0x26, 0x1E)  # .tile stroke colour in models/domino_html.py


def test_page_is_self_contained_and_draws_oriented_faces():
    puzzle = load_domino("domino-double-six")
    page = render_html([puzzle, load_domino("domino-small")], "Two boards")
    # nothing to fetch: no scripts, links, images, fonts or URLs of any kind
    assert not re.search(r"<script|<link|<img|@import|url\(|https?:|src=", page)
    assert page.count('<section class="puzzle"') == 2
    assert page.count('class="answer"') == 2
    assert page.count('<g class="cell"') == 56 + 12
    # every pip drawn: the circles of a board add up to its numbers
    board = page.split('<section class="puzzle" id="puzzle-2">')[0]
    assert board.count('class="pip"') == sum(map(sum, puzzle.numbers))
    # a 6 across is two rows of three, along it is two columns; 2 and 3 turn the same way
    across, along = pip_positions(6, "h"), pip_positions(6, "v")
    assert len({y for _, y in across}) == 2 and len({x for x, _ in across}) == 3
    assert len({x for x, _ in along}) == 2 and len({y for _, y in along}) == 3
    for n in (2, 3):
        assert sorted(pip_positions(n, "h")) != sorted(pip_positions(n, "v"))
    for n in (1, 4, 5, 9):  # symmetric faces do not depend on the mark
        assert sorted(pip_positions(n, "h")) == sorted(pip_positions(n, "v"))
    # the drawn face of a marked cell follows its mark
    r, c = next((r, c) for r, c in puzzle.cells() if puzzle.numbers[r][c] == 6)
    mark = puzzle.marks[r][c]
    cell = re.search(rf'data-row="{r}" data-col="{c}".*?</g>', page, re.S).group(0)
    xs = {m for m in re.findall(r'cx="([\d.]+)"', cell)}
    assert len(xs) == (3 if mark == "h" else 2)


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists() or not CHROMEDRIVER.exists():
        pytest.skip("Debian's chromium and chromium-driver are not installed (make system-deps)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="tessera-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", "--window-size=1000,1400", f"--user-data-dir={profile}",
    ):  # fmt: skip
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _answer_pixels(png: bytes) -> int:
    image = iio.imread(png)[..., :3].astype(int)
    close = np.abs(image - np.array(ANSWER_RGB)).sum(axis=2) < 60
    return int(close.sum())


def test_checkbox_shows_and_hides_the_answer(browser, tmp_path, capsys):
    from selenium.webdriver.common.by import By

    page = tmp_path / "dominoes.html"
    argv = ["domino", "generate", "--size", "8x7", "--unique", "--seed", "12", "--count", "3",
            "--html", str(page)]  # fmt: skip
    code, out, _ = run_cli(argv, capsys)
    assert code == 0 and f"wrote {page}" in out
    browser.get(page.as_uri())
    assert len(browser.find_elements(By.CSS_SELECTOR, "section.puzzle")) == 3
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.board")) == 3
    checkbox = browser.find_element(By.ID, "show-answer")
    board = browser.find_element(By.CSS_SELECTOR, "#puzzle-1 svg.board")

    def visibility() -> set[str]:
        return set(
            browser.execute_script(
                "return [...document.querySelectorAll('.answer')]"
                ".map(g => getComputedStyle(g).visibility)"
            )
        )

    assert not checkbox.is_selected() and visibility() == {"hidden"}
    hidden = board.screenshot_as_png
    browser.find_element(By.ID, "show-answer-label").click()
    assert checkbox.is_selected() and visibility() == {"visible"}
    shown = board.screenshot_as_png
    # the tiles' red outlines are on screen only when shown
    assert _answer_pixels(hidden) == 0
    assert _answer_pixels(shown) > 1000
    a, b = iio.imread(hidden), iio.imread(shown)
    assert a.shape == b.shape and (a != b).any()
    checkbox.click()
    assert not checkbox.is_selected() and visibility() == {"hidden"}
    assert _answer_pixels(board.screenshot_as_png) == 0


def test_print_styles_drop_the_checkbox(browser, tmp_path):
    from selenium.webdriver.common.by import By

    page = tmp_path / "print.html"
    page.write_text(render_html([load_domino("domino-small")]), encoding="utf-8")
    browser.get(page.as_uri())
    label = browser.find_element(By.ID, "show-answer-label")
    assert label.value_of_css_property("display") != "none"
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        assert browser.find_element(By.ID, "show-answer").value_of_css_property("display") == "none"
        assert label.value_of_css_property("display") == "none"
        assert browser.find_element(By.CSS_SELECTOR, "svg.board").is_displayed()
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
