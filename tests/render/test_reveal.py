"""--reveal: an HTML solution whose steps open in stages (the formula, then the written-out working,
then the value) with plain <details> elements, clicked through in a real Chromium. The expected
numbers of the decoder document are worked out by hand: s = [1, 1], h = [1, 0], [0, 2], [1, 1], so
e_1 = 1·1 + 1·0 = 1, e_2 = 1·0 + 1·2 = 2, e_3 = 2."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")

# Test-only: what the page shows (innerText leaves out the inside of a closed <details>) before any
# click, after clicking step 1's "Show the working", and after clicking its "Show the value".
CLICKER = """<script>
const seen = [document.body.innerText];
const first = document.querySelector("details.reveal > summary");
first.click();
seen.push(document.body.innerText);
first.parentElement.querySelector(":scope > details.reveal > summary").click();
seen.push(document.body.innerText);
const out = document.createElement("pre");
out.id = "clicked";
out.textContent = JSON.stringify(seen);
document.body.appendChild(out);
</script>"""


def _reveal_sheet(cli: Any, tmp_path: Path) -> str:
    out = tmp_path / "sheet.html"
    result = cli("solve", str(PROBLEMS / "decoder-dot.toml"), "--reveal", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    return out.read_text(encoding="utf-8")


def test_every_step_keeps_its_working_and_value_in_details(cli: Any, tmp_path: Path) -> None:
    page = _reveal_sheet(cli, tmp_path)
    assert "<script" not in page  # plain <details>: nothing to run, works offline
    steps = re.findall(r"<h3>Step \d+\.", page)
    assert len(steps) == 9  # scores … prediction
    assert page.count('<details class="reveal"><summary>Show the working</summary>') == 9
    # a step whose value is a vector or matrix shows it last; a sum's one line ends in its value
    assert page.count('<details class="reveal"><summary>Show the value</summary>') >= 6
    # the working (the substitution, its result held back) comes before the value, which sits inside
    # it and gives the lines with their results, then the vector
    working = page.index("Show the working")
    value = page.index("Show the value")
    assert working < page.index("1·1 + 1·0 = ?") < value < page.index("1·1 + 1·0 = 1") < page.index("[1, 2, 2]")
    # an exponential's line is held back too, and a sum's (exp_sum had no value stage)
    assert page.index("exp(2) = ?") < page.index("exp(2) = 7.389")
    assert page.count("Show the value") == 9


@needs_chromium
def test_chromium_shows_each_stage_after_a_click(cli: Any, tmp_path: Path) -> None:
    page = _reveal_sheet(cli, tmp_path).replace("</body>", CLICKER + "</body>")
    clicked = tmp_path / "clicked.html"
    clicked.write_text(page, encoding="utf-8")
    dom = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=3000",
            "--dump-dom",
            clicked.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    ).stdout
    seen = json.loads(html.unescape(re.search(r'<pre id="clicked">(.*?)</pre>', dom, re.S).group(1)))
    before, working, value = seen
    assert "Step 1. Alignment scores" in before and "Show the working" in before  # the formula is shown
    assert "1·1 + 1·0 = 1" not in before and "e = [1, 2, 2]" not in before
    assert "1·1 + 1·0 = ?" in working and "1·0 + 1·2 = ?" in working  # the written-out dot products
    assert "1·1 + 1·0 = 1" not in working and "e = [1, 2, 2]" not in working  # their results held back
    assert "1·1 + 1·0 = 1" in value and "e = [1, 2, 2]" in value  # and then the results and the value
    assert "exp(1) = 2.718" not in value  # step 2 stays closed


def test_reveal_is_an_html_option(cli: Any) -> None:
    result = cli("solve", str(PROBLEMS / "decoder-dot.toml"), "--reveal", "-f", "markdown")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "--reveal" in result.stderr and "html" in result.stderr


def test_reveal_from_python() -> None:
    from attncalc import solve

    page = solve(PROBLEMS / "decoder-dot.toml").to_html(reveal=True)
    assert "Show the working" in page and "Show the value" in page


@needs_chromium
@pytest.mark.skipif(
    shutil.which("pdftotext") is None, reason="pdftotext is not installed (apt-get install poppler-utils)"
)
def test_printing_shows_every_stage(cli: Any, tmp_path: Path) -> None:
    """On paper nothing can be clicked: Chromium's print of the reveal sheet holds the working and the
    values, and not the "Show the …" labels."""
    page = tmp_path / "sheet.html"
    page.write_text(_reveal_sheet(cli, tmp_path), encoding="utf-8")
    pdf = tmp_path / "printed.pdf"
    subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--no-pdf-header-footer",
            f"--print-to-pdf={pdf}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "1·1 + 1·0 = 1" in text and "e = [1, 2, 2]" in text
    assert "Show the" not in text


def test_step_ids_in_headings_are_written_as_ids(cli: Any) -> None:
    """[encoder.fwd.1.r_pre] is copied into answers files: not r with the subscript pre."""
    tex = cli("solve", str(PROBLEMS / "seq2seq-bahdanau.toml"), "-f", "latex", "--detail", "full").stdout
    assert r"[encoder.fwd.1.r\_pre]" in tex and r"[W\_out\_new]" in tex
    page = cli("solve", str(PROBLEMS / "seq2seq-bahdanau.toml"), "-f", "html", "--detail", "full").stdout
    assert "[encoder.fwd.1.h_tilde_pre]" in page


def test_a_revealed_seq2seq_keeps_its_answers_closed(cli: Any) -> None:
    """The overview tables (states, predictions, losses) and the final prediction are answers: inside
    <details>; a time step written in brief (--detail first, the default) keeps its lines and gate
    table closed under its heading; --detail full writes every step in stages."""
    page = cli("solve", str(PROBLEMS / "seq2seq-luong.toml"), "-f", "html", "--reveal").stdout
    assert "Show the overview" in page and "Show the result" in page
    head = page.partition("Show the overview")[0]
    assert "Predictions" not in head
    brief = page.partition("Decoder step 2 (")[2]
    closed = brief.index("Show this time step&#x27;s lines and values")
    assert closed < brief.index("decoder.2.weights") and closed < brief.index("Gates at dec 2")
    full = cli("solve", str(PROBLEMS / "seq2seq-luong.toml"), "-f", "html", "--reveal", "--detail", "full").stdout
    assert "Decoder step 2 (" not in full and full.count("Show the working") > page.count("Show the working")


def test_reveal_applies_to_the_solution_sheet_only(cli: Any) -> None:
    result = cli("solve", str(PROBLEMS / "decoder-dot.toml"), "--reveal", "--sheet", "answers", "-f", "html")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "--reveal" in result.stderr


def test_the_working_gives_no_result_away(cli: Any, tmp_path: Path) -> None:
    """Before "Show the value" is opened a step shows its substitution only: no exact form (exp_sum's
    Z = e + 2e² is its answer), no table marking the largest probability (the prediction's)."""
    page = _reveal_sheet(cli, tmp_path)
    for part in re.split(r"<h3>Step ", page)[1:]:
        working = part.split("Show the value")[0]
        assert "exact:" not in working and "largest" not in working, part[:60]
    assert "exact:" in page and "largest" in page  # they are in the value stages
