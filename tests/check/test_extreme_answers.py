"""Every kind's steps answered with extreme values never crash ``check``: the answers a student (or a
hostile tryout) may write - 0, ±1e308, a subnormal 1e-320, −1, 10^6 (a count far out of range),
"-inf", 1e25 (an angle whose neighbours a period apart are one float), a table of another shape or
with one row too many, a label that is no label of the problem - each step alone, every step at once,
and the steps up to each one, in one example problem of every built-in kind (the smallest in
problems/, or ``attncalc new KIND``'s template). Each is graded (a report with a verdict for every
answered step) or refused with attncalc's own one-line error, never a traceback.

Hostile tryout 29 found three such crashes by hand (a speculative count out of range beside a next
token, a quantization scale of 0 or 1e308, a moe matrix entry unreadable: this sweep finds the first
on the commit before its fix; tests/check/test_odd_answers_never_crash.py holds all three). Tryout 30
found two more, which this sweep finds on the commit before their fix: a positional-encoding angle of
1e25 or more (the interval of its sines looped without end and took all memory), and a speculative
count of "-inf" beside a residual of "-inf" (its working looked up past its written lines)."""

from __future__ import annotations

import functools
import tomllib
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.errors import ProblemError
from attncalc.kinds import template
from attncalc.mechanisms import MECHANISMS, solve
from attncalc.parse import Problem, load_problem, parse_problem

from ..helpers import PROBLEMS

EXTREMES: list[Any] = [0, 1e308, -1e308, 1e-320, -1, 1e6, 0.5, "-inf", 1e25, "shape", "row"]
VERDICTS = {"correct", "carried", "wrong", "unanswered"}


@functools.cache
def _examples() -> dict[str, Problem]:
    """The smallest example problem of each kind (fewest steps), or the kind's template."""
    found: dict[str, tuple[int, Problem]] = {}
    for f in sorted(PROBLEMS.glob("*.toml")):
        p = load_problem(f)
        n = len(solve(p, exact=False).steps)
        if p.kind not in found or n < found[p.kind][0]:
            found[p.kind] = (n, p)
    out = {k: p for k, (_, p) in found.items()}
    for kind in MECHANISMS:
        if kind not in out:
            out[kind] = parse_problem(tomllib.loads(template(kind)), f"{kind}.toml")
    return out


def _filled(step: Any, v: Any) -> Any:
    value = step.value
    if isinstance(value, str):
        return {"shape": ["a", "b"], "row": 7, 0: value + " x"}.get(v, "zz")
    shape = np.shape(value)
    if v == "shape":
        return [[1.5, 2], [3, 4], [5, 6]]
    if v == "row":
        return np.zeros((shape[0] + 1, *shape[1:])).tolist() if shape else [0, 0]
    return np.full(shape, v).tolist() if shape else v


def _answer_sets(problem: Problem) -> list[dict[str, Any]]:
    steps = solve(problem, exact=False, carry_rounded=False).steps
    sets = [{s.id: _filled(s, v) for s in steps} for v in EXTREMES]  # every step at once
    sets += [{s.id: _filled(s, EXTREMES[i % len(EXTREMES)])} for i, s in enumerate(steps)]  # each alone
    # the steps up to each one (a label beside the numbers before it), every other one
    sets += [{s.id: _filled(s, EXTREMES[(i + 3) % len(EXTREMES)]) for s in steps[: i + 1]} for i in range(len(steps))][
        ::2
    ]
    # one entry extreme, the rest "?" (the other entries then stand as computed)
    for v in ("1e25", "-inf", "0"):  # (as written in a file: with its precision)
        sets += [{s.id: _one_entry(s, v)} for s in steps if np.ndim(s.value) and not isinstance(s.value, str)]
    return sets


def _one_entry(step: Any, v: Any) -> Any:
    out = np.full(np.shape(step.value), "?", dtype=object)
    out.flat[0] = v
    return out.tolist()


# examples beside each kind's smallest whose steps go other ways (sines of the angles: the interval chain)
ALSO = ["positions-sinusoidal.toml"]


def test_every_built_in_kind_has_an_example() -> None:
    assert set(_examples()) == set(MECHANISMS)


@pytest.mark.parametrize("kind", sorted(MECHANISMS) + ALSO)
def test_extreme_answers_are_graded_or_refused_never_a_crash(kind: str) -> None:
    problem = load_problem(PROBLEMS / kind) if kind in ALSO else _examples()[kind]
    for answers in _answer_sets(problem):
        try:
            report = check(problem, answers, "a.json")
        except ProblemError as e:  # attncalc's own refusal: one line naming the answers file
            assert str(e).startswith("a.json: ") and "\n" not in str(e), str(e)
            continue
        graded = {r.id: r.verdict for r in report.results if r.verdict != "unanswered"}
        assert set(answers) <= set(graded), (kind, sorted(answers))
        assert set(graded.values()) <= VERDICTS


MULTI_HEAD_4242 = """
kind = "multi-head"
score = "scaled-dot"
tokens = ["the", "cat", "sat"]
[given]
X = [[0, -1, 0, 1], [-1, 0, -1, 1], [0, 0, -1, -1]]
heads = 2
W_Q = [[1, -1, 1, 0], [-1, 1, 0, 1], [-1, 1, -1, -1], [-1, 0, -1, 0]]
W_K = [[0, 0, 0, 1], [0, 0, 1, 1], [-1, 0, 1, -1], [1, 1, 0, -1]]
W_V = [[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 0, -1], [0, 1, -1, 1]]
W_O = [[1, -1, -1, -1], [-1, 0, -1, 0], [0, 0, -1, -1], [-1, -1, 1, 0]]
[settings]
exact = false
"""


def test_answers_of_1e308_grade_without_numpy_warnings() -> None:
    """The practice page's multi-head variant 4242, every entry answered 1e308: numpy printed
    "RuntimeWarning: overflow encountered in subtract" (a slip's values compared with the plain run's,
    1e308 − (−1e308)) on the terminal and in the page's log (hostile tryout 32)."""
    p = parse_problem(tomllib.loads(MULTI_HEAD_4242), "mh.toml")
    truth = solve(p, exact=False)
    answers = {
        s.id: np.full(np.shape(s.value), 1e308).tolist() for s in truth.steps if np.asarray(s.value).dtype.kind == "f"
    }
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = check(p, answers, "a.json")
    assert report.results and not any(r.verdict == "correct" for r in report.results)
