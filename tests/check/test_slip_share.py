"""``generate --slip-share S`` sets the share of a step's points a named slip earns, in check and in
every quiz format (named slips scored 0 in every LMS: generate had no way to set it).

The slip is the scaled scores written without the 1/√d_k scale, q·k_i, recomputed here with numpy from
the generated problem file's givens. Each format is read as its importer reads it: QTI 2.1 by the spec
consumer of tests/exports/test_qti.py, Moodle by its numerical matching (tests/exports/test_lms.py), Canvas classic and
ILIAS by their range answers (tests/exports/test_qti12.py), which give a number full marks or none: there the
slip earns nothing, whatever the share (docs/lms.md).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.parse import load_problem

from ..exports.test_lms import moodle_grade, moodle_questions
from ..exports.test_qti import Package, by_step, maxscore, run
from ..exports.test_qti12 import NS, assessment, canvas_numerical, ilias_numeric, ilias_pool, step_of

ARGS = ["generate", "--kind", "attention", "--score", "scaled-dot", "--count", "2", "--seed", "3"]


def _draw(cli: Any, out: Path, fmt: str, share: str | None) -> np.ndarray:
    extra = ["--slip-share", share] if share is not None else []
    result = cli(*ARGS, *extra, "--format", fmt, "--out", str(out))
    assert result.exit_code == 0, result.stderr
    raw = tomllib.loads((out / "variant-01.toml").read_text(encoding="utf-8"))
    query, keys = np.array(raw["given"]["query"], float), np.array(raw["given"]["keys"], float)
    return keys @ query  # the slip: the scale left out


def _slip_entries(unscaled: np.ndarray) -> list[int]:
    """The entries where the slip differs from the right value (not a 0 that the scale leaves 0)."""
    return [i for i, x in enumerate(unscaled) if abs(x - x / np.sqrt(2)) > 1e-3]


@pytest.mark.parametrize("share", ["0.5", None])
def test_check_gives_the_share(cli: Any, tmp_path: Path, share: str | None) -> None:
    unscaled = _draw(cli, tmp_path, "markdown", share)
    p = load_problem(tmp_path / "variant-01.toml")
    rep = check(p, {"scores": unscaled.tolist(), "scaled_scores": unscaled.tolist()}, "a.toml")
    r = next(r for r in rep.results if r.id == "scaled_scores")
    assert r.mistake == "no_scale"
    # each entry on its own: the right ones (a 0 score stays 0 unscaled) in full, the changed ones the share
    right = sum(abs(x - x / np.sqrt(2)) <= 1e-3 for x in unscaled)
    assert r.credit == pytest.approx((right + (0.5 if share else 0.0) * (len(unscaled) - right)) / len(unscaled))


@pytest.mark.parametrize(("share", "expected"), [(0.5, (1 + 0.5 * 2) / 3), (0.0, 1 / 3), (1.0, 1.0)])
def test_a_slip_leaving_an_entry_right_earns_that_entry_and_the_share_of_the_others(
    share: float, expected: float
) -> None:
    """q = [1, 1], keys [1, -1], [2, 1], [0, 3]: scores q·k = [0, 3, 3]; written unscaled as [0, 3, 3] where
    the truth is [0, 3/√2, 3/√2] = [0, 2.121, 2.121]: entry 1 right, entries 2 and 3 the slip's. Worked by
    hand: (1 + S·2)/3, as an LMS quiz with one item per entry gives it (S = 0: 1/3, its right entry)."""
    from attncalc.parse import parse_problem

    raw = {
        "kind": "attention",
        "score": "scaled-dot",
        "given": {"query": [1, 1], "keys": [[1, -1], [2, 1], [0, 3]]},
        "grading": {"slip": share},
    }
    p = parse_problem(raw, "p.toml")
    r = next(
        r
        for r in check(p, {"scores": [0, 3, 3], "scaled_scores": [0, 3, 3]}, "a.toml").results
        if r.id == "scaled_scores"
    )
    assert r.mistake == "no_scale"
    assert r.credit == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("share", ["0.5", None])
def test_qti_gives_the_share(cli: Any, tmp_path: Path, share: str | None) -> None:
    unscaled = _draw(cli, tmp_path, "qti", share)
    pkg = Package((tmp_path / "qti.zip").read_bytes())
    items = by_step(pkg, pkg.sections[0])["scaled_scores"]
    for i in _slip_entries(unscaled):
        out = run(items[i], {"RESPONSE": float(unscaled[i])})
        assert out["SCORE"] == pytest.approx((0.5 if share else 0.0) * maxscore(items[i]))


@pytest.mark.parametrize("share", ["0.5", None])
def test_moodle_gives_the_share(cli: Any, tmp_path: Path, share: str | None) -> None:
    unscaled = _draw(cli, tmp_path, "moodle", share)
    quiz = [
        q
        for q in moodle_questions((tmp_path / "quiz.xml").read_text(encoding="utf-8"))["scaled_scores"]
        if q.find("name/text").text.startswith("Variant 1: ")
    ]
    for i in _slip_entries(unscaled):
        fraction, _ = moodle_grade(quiz[i], float(unscaled[i]))
        assert fraction == (0.5 if share else 0.0)


@pytest.mark.parametrize("fmt", ["qti12", "ilias"])
def test_canvas_and_ilias_cannot_give_a_share(cli: Any, tmp_path: Path, fmt: str) -> None:
    """A QTI 1.2 number is right (every range answer weighs 100 in Canvas; ILIAS keeps one range) or
    wrong: the slip is never accepted, so it never earns full marks there either."""
    unscaled = _draw(cli, tmp_path, fmt, "0.5")
    if fmt == "qti12":
        doc = assessment((tmp_path / "qti12.zip").read_bytes())
    else:
        doc = ilias_pool(tmp_path / "ilias.zip")
    items = [i for i in doc.iter(f"{NS}item") if i.get("title").startswith("Variant 1:")]
    items = [i for i in items if step_of(i) == "scaled_scores"]
    for i in _slip_entries(unscaled):
        assert not canvas_numerical(items[i], float(unscaled[i]))
        lo, hi, _ = ilias_numeric(items[i])
        assert not lo <= float(unscaled[i]) <= hi
        assert canvas_numerical(items[i], round(float(unscaled[i]) / np.sqrt(2), 3))  # the right value is


def test_a_share_outside_0_to_1_is_refused(cli: Any, tmp_path: Path) -> None:
    result = cli(*ARGS, "--slip-share", "1.5", "--out", str(tmp_path / "x"))
    assert result.exit_code == 2 and "--slip-share" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "x").exists() or not any((tmp_path / "x").iterdir())


def test_the_python_api_takes_the_share() -> None:
    import attncalc

    v = attncalc.generate(kind="softmax", seed=2, slip_share=0.25)[0]
    assert v.problem["grading"]["slip"] == 0.25
