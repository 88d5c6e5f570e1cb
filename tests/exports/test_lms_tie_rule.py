"""A beam search's kept beams are asked by rank, and check accepts one order of candidates tied in
score only: the earlier beam, then the earlier token (docs/interface.md, decode). Every view that asks
the ranks states that rule in the question itself (not only in the worked step shown as feedback):
Moodle, QTI 2.1, QTI 1.2 (Canvas, ILIAS), New Quizzes, the question sheet and the practice page. A
choice whose step has no tie rule (top-p's chosen token) does not state it."""

from __future__ import annotations

import html
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

from ..serve_support import examples_client

FORMATS = ("moodle", "qti", "qti12", "ilias", "newquizzes")
# what a question's text is, per format (the feedback, which holds the worked step, is left out)
BODY = re.compile(
    r'<questiontext format="html"><text>(.*?)</text></questiontext>'  # Moodle
    r"|<itemBody>(.*?)</itemBody>"  # QTI 2.1
    r"|<presentation\b[^>]*>(.*?)</presentation>",  # QTI 1.2
    re.S,
)


def _says_rule(text: str) -> bool:
    text = " ".join(text.split()).lower()
    return "tied in score" in text and "earlier beam" in text and "earlier token" in text


def _plain(fragment: str) -> str:
    fragment = fragment.replace("<![CDATA[", "").replace("]]>", "")
    for _ in range(2):  # QTI 1.2's mattext holds escaped HTML
        fragment = html.unescape(re.sub(r"<[^>]+>", " ", fragment))
    return re.sub(r"<[^>]+>", " ", fragment)


def _bodies(folder: Path) -> list[str]:
    docs = [p.read_text(encoding="utf-8") for p in folder.glob("*.xml")]
    for z in folder.glob("*.zip"):
        with zipfile.ZipFile(z) as f:
            docs += [f.read(n).decode("utf-8") for n in f.namelist() if n.endswith(".xml")]
    return [_plain(next(g for g in m.groups() if g is not None)) for d in docs for m in BODY.finditer(d)]


def _generate(cli: Any, out: Path, fmt: str, strategy: str) -> Path:
    result = cli("generate", "--out", str(out), "--kind", "decode", "--strategy", strategy,
                 "--count", "2", "--seed", "3", "--format", fmt)  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_rank_question_states_the_tie_rule(cli: Any, tmp_path: Path, fmt: str) -> None:
    bodies = _bodies(_generate(cli, tmp_path / fmt, fmt, "beam"))
    ranks = [b for b in bodies if "beams, rank" in b]
    assert len(ranks) == 4  # two ranks (width 2) in each of two variants
    assert all(_says_rule(b) for b in ranks)
    others = [b for b in bodies if "beams, rank" not in b]
    assert others and not any(_says_rule(b) for b in others)  # the numeric steps do not


def test_a_choice_without_a_tie_rule_states_none(cli: Any, tmp_path: Path) -> None:
    bodies = _bodies(_generate(cli, tmp_path / "topp", "moodle", "top-p"))
    assert bodies and not any(_says_rule(b) for b in bodies)


def test_the_question_sheet_states_it(cli: Any, tmp_path: Path) -> None:
    out = _generate(cli, tmp_path / "sheets", "markdown", "beam")
    sheet = (out / "questions.md").read_text(encoding="utf-8")
    lines = [ln for ln in sheet.splitlines() if _says_rule(ln.replace("\\", ""))]
    assert len(lines) == 2 and all("kept_labels" in ln for ln in lines)  # once per variant, at the step


def test_the_practice_page_states_it_at_the_step() -> None:
    page = html.unescape(examples_client().get("/problems/decode-beam").text)
    section = re.search(r'<section class="step[^"]*" id="step-\d+"[^>]*>(?:(?!</section>).)*?kept_labels.*?</section>',
                        page, re.S)  # fmt: skip
    assert section is not None and _says_rule(re.sub(r"<[^>]+>", " ", section.group(0)))
    other = html.unescape(examples_client().get("/problems/decoder-dot").text)
    assert not _says_rule(re.sub(r"<[^>]+>", " ", other))
