"""The result objects' methods with odd arguments: one clear error naming the method and the argument,
never a TypeError from deep in a renderer, and never a silent empty text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import attncalc
from attncalc.errors import ArgumentError, AttncalcError

from ..helpers import PROBLEMS


@pytest.fixture(scope="module")
def d() -> attncalc.Derivation:
    return attncalc.solve(str(PROBLEMS / "decoder-dot.toml"))


WIDTHS = ["a", 2.5, 0, -5, True, 39, 10_001, None, 10**5000, [80]]


@pytest.mark.parametrize("width", WIDTHS, ids=[f"w{k}" for k in range(len(WIDTHS))])
def test_to_text_refuses_a_width_that_is_not_one(d: attncalc.Derivation, width: object) -> None:
    with pytest.raises(AttncalcError, match=r"Derivation\.to_text: width: expected a whole number from 40"):
        d.to_text(width=width)  # type: ignore[arg-type]


def test_to_text_takes_the_narrowest_width_the_command_takes(d: attncalc.Derivation) -> None:
    text = d.to_text(width=40)
    assert text and max(len(line) for line in text.splitlines()) <= 40


def test_a_report_refuses_an_odd_width_too() -> None:
    rep = attncalc.check(str(PROBLEMS / "decoder-dot.toml"), {"weights": [0.155, 0.422, 0.422]})
    with pytest.raises(AttncalcError, match=r"Report\.to_text: width"):
        rep.to_text(width="wide")  # type: ignore[arg-type]


def test_an_unknown_step_names_the_steps_there_are(d: attncalc.Derivation) -> None:
    with pytest.raises(KeyError, match=r"no step 'nope' in this derivation; its steps are: .*weights"):
        d.step("nope")


@pytest.mark.parametrize("step_id", [10**5000, np.array([1, 2]), None, 3], ids=["huge", "array", "none", "int"])
def test_a_step_id_that_is_not_text_is_a_key_error_saying_so(d: attncalc.Derivation, step_id: object) -> None:
    """A huge int broke Python's int-to-str limit in the message and an array numpy's truth value."""
    with pytest.raises(KeyError, match="a step id is text"):
        d.step(step_id)  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="a step id is text"):
        d[step_id]  # type: ignore[index]


@pytest.mark.parametrize("detail", [10**5000, np.array(["full", "first"]), "ful"], ids=["huge", "array", "typo"])
def test_an_odd_detail_is_one_clear_error(d: attncalc.Derivation, detail: object) -> None:
    said = (
        "unknown level 'ful'" if isinstance(detail, str) else "expected a level as text .full, first, summary., got an?"
    )
    with pytest.raises(AttncalcError, match=f"detail: {said}"):
        d.to_html(detail=detail)  # type: ignore[arg-type]


def test_a_number_for_detail_says_a_level_is_text_not_a_int(d: attncalc.Derivation) -> None:
    """to_latex(detail=5) said "unknown level a int"."""
    with pytest.raises(AttncalcError, match=r"detail: expected a level as text \(full, first, summary\), got an int$"):
        d.to_latex(detail=5)  # type: ignore[arg-type]


VIEW_CALLS = [
    ("to_text", {"widht": 60}, "Derivation.to_text: widht: .*did you mean width"),
    ("to_html", {"fragmnt": True}, "Derivation.to_html: fragmnt: .*did you mean fragment"),
    ("to_json", {"indent": 2}, "Derivation.to_json: indent: not a keyword of this function; it takes none"),
    ("to_markdown", {"shet": "question"}, "Derivation.to_markdown: shet: .*did you mean sheet"),
    ("to_latex", {"fragmnt": True}, "Derivation.to_latex: fragmnt: .*did you mean fragment"),
]


@pytest.mark.parametrize(("method", "kwargs", "said"), VIEW_CALLS, ids=[c[0] for c in VIEW_CALLS])
def test_a_misspelt_keyword_of_a_view_is_attncalcs_own_error(
    d: attncalc.Derivation, method: str, kwargs: dict[str, object], said: str
) -> None:
    """A keyword a view does not take was Python's bare TypeError; now an ArgumentError (an AttncalcError)
    naming the method and the keyword, with the close ones."""
    with pytest.raises(ArgumentError, match=said):
        getattr(d, method)(**kwargs)
    with pytest.raises(ArgumentError, match=f"Derivation.{method}: too many positional arguments"):
        getattr(d, method)(*range(6))


def test_a_misspelt_keyword_of_a_report_view_is_attncalcs_own_error() -> None:
    rep = attncalc.check(str(PROBLEMS / "decoder-dot.toml"), {"scores": [1, 2, 2]})
    with pytest.raises(ArgumentError, match=r"Report.to_json: indent: .*it takes none"):
        rep.to_json(indent=2)  # type: ignore[call-arg]
    with pytest.raises(ArgumentError, match=r"Report.to_text: widht: .*did you mean width"):
        rep.to_text(widht=60)  # type: ignore[call-arg]
    assert "scores" in rep.to_text(width=60)


def test_an_out_folder_no_file_system_can_name_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(AttncalcError, match=r"--out: .*not a name this file system can hold"):
        attncalc.generate(kind="softmax", out=str(tmp_path / "x\ud800"))


SHEET_CALLS = [
    ("to_markdown", {"sheet": "answer"}, "sheet"),
    ("to_html", {"sheet": None}, "sheet"),
    ("to_latex", {"sheet": 1}, "sheet"),
    ("to_html", {"reveal": -1}, "reveal"),
    ("to_html", {"reveal": "x"}, "reveal"),
    ("to_html", {"reveal": 10**100}, "reveal"),
    ("to_html", {"fragment": "no"}, "fragment"),
    ("to_latex", {"fragment": "no"}, "fragment"),
]


@pytest.mark.parametrize(("method", "kwargs", "name"), SHEET_CALLS, ids=[f"{m}-{k}" for m, k, _ in SHEET_CALLS])
def test_a_sheet_view_refuses_an_odd_sheet_or_switch(
    d: attncalc.Derivation, method: str, kwargs: dict[str, object], name: str
) -> None:
    """An unknown sheet was a bare ``ValueError: answer``; a switch of another type was taken silently."""
    with pytest.raises(AttncalcError, match=rf"Derivation\.{method}: {name}: ") as e:
        getattr(d, method)(**kwargs)
    if name == "sheet":
        assert "solution, answers, question" in str(e.value)
    else:
        assert "expected True or False" in str(e.value)


def test_a_derivation_iterates_over_its_steps(d: attncalc.Derivation) -> None:
    """``list(d)`` raised KeyError (Python fell back on ``d[0]``): it is the steps, in order."""
    steps = list(d)
    assert [s.id for s in steps] == d.step_ids and steps == list(d.steps)
    assert all(s in d and s.id in d for s in d)


def test_the_api_sheets_are_the_renderers() -> None:
    from attncalc.render.sheet import SHEETS as RENDERED
    from attncalc.reports.exports import SHEETS

    assert SHEETS == RENDERED


def test_a_given_key_given_twice_is_refused_not_merged() -> None:
    """solve(query=..., given={"query": ...}) silently took one of the two."""
    with pytest.raises(AttncalcError, match=r"<keywords>: query: given twice, as query=\.\.\. and in given=\{\.\.\.\}"):
        attncalc.solve(kind="attention", score="dot", query=[1, 1], given={"query": [2, 2], "keys": [[1, 0], [0, 1]]})
    d = attncalc.solve(kind="attention", score="dot", query=[1, 1], given={"keys": [[1, 0], [0, 2]]})
    assert [float(x) for x in d["scores"]] == [1.0, 2.0]  # q·k by hand: 1·1 + 1·0, 1·0 + 1·2
