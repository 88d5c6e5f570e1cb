"""A real browser on the practice page: Playwright for Python driving the system Chromium (never a
downloaded one) against `attncalc serve` started in the test on 127.0.0.1.

A student types answers with a slip, with the keyboard alone, and checks: the slip is named next to
its step, the next step carried; a step is revealed; the answers downloaded grade the same with
`attncalc check`. Screenshots at 375 px and 1280 px go to tmp (and to $ATTNCALC_SCREENSHOTS when
set, to look at). Skipped without Playwright or Chromium, unless ATTNCALC_BROWSER_TESTS=required
(CI sets it: there the test must run)."""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS, ROOT

REQUIRED = os.environ.get("ATTNCALC_BROWSER_TESTS") == "required"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _skip(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"the browser test must run here: {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


try:
    from playwright.sync_api import Page, sync_playwright
except ImportError:
    _skip("Playwright for Python is not installed (the test extra)")
if CHROMIUM is None:
    _skip("no system Chromium (apt install chromium)")
try:
    import uvicorn  # noqa: F401
except ImportError:
    _skip("the serve extra is not installed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """`attncalc serve problems --practice` on a free port of 127.0.0.1, until the module ends."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "attncalc", "serve", str(PROBLEMS), "--port", str(port), "--practice"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):  # a bound on a hung start, not a timing assertion
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=2) as r:
                    if r.read() == b"ok":
                        break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail(f"attncalc serve exited: {proc.stderr.read().decode() if proc.stderr else ''}")
                time.sleep(0.1)
        else:
            pytest.fail("attncalc serve did not answer /healthz")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def _page(browser: Any, width: int, **kw: Any) -> tuple[Any, list[str]]:
    context = browser.new_context(viewport={"width": width, "height": 900}, accept_downloads=True, **kw)
    page = context.new_page()
    problems: list[str] = []  # CSP violations and script errors
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    return page, problems


# decoder-dot by hand: scores 1, 2, 2; the slip: the exponentials e, e², e² not divided by their sum;
# the context right for those weights: 2.718·[1, 0] + 7.389·[0, 2] + 7.389·[1, 1]
TYPED = [
    ("Alignment scores, x1", "1"),
    ("Alignment scores, x2", "2"),
    ("Alignment scores, x3", "2"),
    ("Attention weights, x1", f"{math.e:.3f}"),
    ("Attention weights, x2", f"{math.e**2:.3f}"),
    ("Attention weights, x3", f"{math.e**2:.3f}"),
    ("Context vector, 1", f"{math.e + math.e**2:.3f}"),
    ("Context vector, 2", f"{3 * math.e**2:.3f}"),
]


def _type_with_the_keyboard(page: Page) -> None:
    """Tab to each labelled field (found by its label) and type; no mouse."""
    for label, text in TYPED:
        target = page.get_by_label(label, exact=True)
        for _ in range(80):
            if target.evaluate("e => e === document.activeElement"):
                break
            page.keyboard.press("Tab")
        else:
            pytest.fail(f"Tab never reached the field labelled {label!r}")
        _not_under_the_controls(page, target, label)
        page.keyboard.type(text)


def _not_under_the_controls(page: Page, target: Any, label: str) -> None:
    """The focused field is in view and not hidden behind the bar of buttons kept at the bottom
    (WCAG 2.4.11, focus not obscured)."""
    field = target.bounding_box()
    bar = page.locator(".controls").bounding_box()
    height = page.viewport_size["height"] if page.viewport_size else 900
    assert field is not None and bar is not None
    assert 0 <= field["y"] and field["y"] + field["height"] <= height, f"{label!r} is out of view"
    below = field["y"] >= bar["y"] + bar["height"]
    above = field["y"] + field["height"] <= bar["y"]
    assert below or above, f"the field labelled {label!r} is hidden behind the buttons"


def _shots(page: Page, name: str, tmp_path: Path) -> None:
    out = os.environ.get("ATTNCALC_SCREENSHOTS")
    for folder in [tmp_path, *([Path(out)] if out else [])]:
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("width", [375, 1280])
def test_a_student_checks_reveals_and_downloads(server: str, browser: Any, width: int, tmp_path: Path) -> None:
    page, problems = _page(browser, width)
    page.goto(server + "/problems/decoder-dot")
    _type_with_the_keyboard(page)
    page.keyboard.press("Enter")  # submits the form with its first button: Check
    page.wait_for_selector(".summary")
    step4, step5 = page.locator("#step-4"), page.locator("#step-5")
    assert "v-wrong" in (step4.get_attribute("class") or "")
    assert "the exponentials were not divided by their sum" in step4.inner_text()
    assert "v-carried" in (step5.get_attribute("class") or "")
    assert "Go to step 4 (weights), where the error began" in step5.inner_text()
    assert "v-correct" in (page.locator("#step-1").get_attribute("class") or "")
    for label, text in TYPED:  # what was typed stays
        assert page.get_by_label(label, exact=True).input_value() == text
    _shots(page, f"checked-{width}", tmp_path)

    # a long answer (a calculator's 1.5536e-1) shows whole in its field, not cut to "1.5536"
    field = page.get_by_label("Output probabilities, A", exact=True)
    field.fill("1.5536e-1")
    assert field.evaluate("e => e.scrollWidth <= e.clientWidth"), "the typed answer is cut off"
    field.fill("")

    # reveal the first step: its working, then its value, opened in stages with the keyboard
    page.get_by_role("button", name="Reveal the next step").click()
    revealed = page.locator("#step-1 .revealed")
    revealed.wait_for()
    assert "v-wrong" in (page.locator("#step-4").get_attribute("class") or "")  # the verdicts stay
    working = revealed.locator("summary", has_text="Show the working")
    working.focus()
    page.keyboard.press("Enter")
    assert "1·1 + 1·0 = ?" in revealed.inner_text()
    revealed.locator("summary", has_text="Show the value").focus()
    page.keyboard.press("Enter")
    assert "= [1, 2, 2]" in revealed.inner_text()
    _shots(page, f"revealed-{width}", tmp_path)

    # download the answers and grade them with the command: the page's verdicts
    with page.expect_download() as info:
        page.get_by_role("button", name="Download my answers").click()
    saved = tmp_path / "mine.toml"
    info.value.save_as(saved)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(
        [sys.executable, "-m", "attncalc", "check", str(PROBLEMS / "decoder-dot.toml"), str(saved), "-f", "json"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 1, r.stderr
    verdicts = {x["id"]: x["verdict"] for x in json.loads(r.stdout)["results"]}
    assert verdicts == {"scores": "correct", "weights": "wrong", "context": "carried"}
    assert problems == []  # no CSP violation, no script error


def test_the_page_works_without_javascript(server: str, browser: Any, tmp_path: Path) -> None:
    page, _ = _page(browser, 1280, java_script_enabled=False)
    page.goto(server + "/problems/decoder-dot")
    for label, text in TYPED:
        page.get_by_label(label, exact=True).fill(text)
    page.get_by_role("button", name="Check").click()
    page.wait_for_selector(".summary")
    assert "the exponentials were not divided by their sum" in page.locator("#step-4").inner_text()
    assert page.url.endswith("/problems/decoder-dot/check#results")


def test_index_and_a_new_variant(server: str, browser: Any, tmp_path: Path) -> None:
    page, problems = _page(browser, 375)
    page.goto(server + "/")
    _shots(page, "index-375", tmp_path)
    page.get_by_role("link", name="New multi-head variant").click()
    page.wait_for_selector("#step-1")
    assert "/problems/variant-multi-head-" in page.url and "a generated variant" in page.inner_text("main")
    assert problems == []


def test_no_example_page_is_wider_than_a_phone(server: str, browser: Any, tmp_path: Path) -> None:
    """At 375 px no practice page scrolls sideways: a wide Given table or answer grid scrolls inside
    its own box, row labels do not break inside words."""
    page, problems = _page(browser, 375)
    wide: dict[str, int] = {}
    for f in sorted(PROBLEMS.glob("*.toml")):
        page.goto(server + f"/problems/{f.stem}")
        width = int(page.evaluate("document.documentElement.scrollWidth"))
        if width > 375:
            wide[f.stem] = width
        if f.stem == "layer-encoder":
            _shots(page, "layer-encoder-375", tmp_path)
    assert wide == {}
    # a row label (a token such as "je") is never broken inside the word: its text is one line
    for name in ("layer-encoder", "long-sentence"):
        page.goto(server + f"/problems/{name}")
        broken = page.evaluate(
            """[...document.querySelectorAll('table.grid th[scope="row"]')].filter(th => {
                 const r = document.createRange(); r.selectNodeContents(th);
                 return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size > 1;
               }).map(th => th.textContent.trim())"""
        )
        assert broken == [], name
    assert problems == []
