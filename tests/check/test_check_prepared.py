"""A problem prepared once for grading (:class:`attncalc.check.prepared.Prepared`,
what ``attncalc serve`` keeps per served problem) changes no report. Every answers set below is
graded twice, without the prepared problem (the reference: ``check`` as the command runs it) and with
one prepared problem shared by every set, in one order and the reverse, so that each check finds the
store filled by other answerers' checks; the two reports must be equal field by field.

The answers are the kinds a class sends: the true values as written, work built with each slip the
computation consults (the slip switched on in the mechanism and carried through, rounded to 3
decimals), several wrong entries, steps skipped or entries written "?", and one entry off.
Work is counted, not timed: a prepared problem runs its mechanism no more for an answer all right."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from attncalc.check import Tolerance, check
from attncalc.check.answers import _numbers
from attncalc.check.prepared import Prepared
from attncalc.check.runs import as_step
from attncalc.derivation.arith import Chain, SlipProbe, round_half_up
from attncalc.kinds.mistakes import MISTAKES
from attncalc.mechanisms import MECHANISMS, solve
from attncalc.parse import Problem, load_problem, parse_problem

from ..helpers import PROBLEMS

EXAMPLES = ["decoder-dot", "mh-self-attention", "decode-top-k", "bleu-papineni", "lstm-doc-output", "bpe-cs336"]
SIM = {
    "kind": "similarity",
    "measure": ["dot", "cosine"],
    "given": {"A": [[0.8, 0.2, -0.5], [0.1, 0.9, 0.3]], "B": [[0.7, 0.2, 0.1], [0.2, 0.9, -0.3]]},
}


def written(x: Any) -> Any:
    """Numbers as a student writes them to 3 decimals; whole numbers as whole numbers."""
    a = np.asarray(x, dtype=float)
    if a.ndim:
        return [written(v) for v in a]
    v = float(a)
    if not np.isfinite(v):
        return "?"
    return str(int(v)) if v == int(v) else f"{round_half_up(v, 3):.3f}"


def _values(problem: Problem, slip: str | None) -> dict[str, Any]:
    """Every step computed by hand to 3 decimals (with ``slip`` switched on in the mechanism), as written."""
    chain = Chain("hand", 3, mistake=slip)
    steps = {s.id: s for s in MECHANISMS[problem.kind].run(problem, chain)}
    return {
        k: (s.value if isinstance(s.value, str) else written(as_step(chain.computed[k], s)))
        for k, s in steps.items()
        if isinstance(s.value, str) or k in chain.computed
    }


def _answer_sets(problem: Problem) -> dict[str, dict[str, Any]]:
    truth = solve(problem, exact=False)
    right = _values(problem, None)
    right = {k: v for k, v in right.items() if k in truth.step_ids}
    probe = SlipProbe()
    MECHANISMS[problem.kind].run(problem, Chain("float", mistake=probe))
    sets = {"right": right}
    for slip in [m for m in MISTAKES if m in probe.seen][:4]:
        try:
            made = _values(problem, slip)
        except Exception:  # a slip this problem's numbers cannot take: not an answer anyone writes
            continue
        sets[f"slip {slip}"] = {k: v for k, v in made.items() if k in right and _same_shape(v, right[k])}
    numeric = [k for k, v in right.items() if isinstance(v, list)]
    wrong = copy.deepcopy(right)
    for k in numeric[1::3]:
        row = wrong[k] if not isinstance(wrong[k][0], list) else wrong[k][-1]
        row[-1] = f"{float(row[-1]) * 1.7 + 0.3:.3f}"
    sets["several wrong"] = wrong
    skips = copy.deepcopy(right)
    for i, k in enumerate(list(skips)):
        v = skips[k]
        if i % 4 == 3:
            del skips[k]
        elif isinstance(v, list):
            row = v if not isinstance(v[0], list) else v[0]
            if len(row) > 1:
                row[0] = "?"
    sets["skips"] = skips
    off = copy.deepcopy(right)
    row = off[numeric[0]] if not isinstance(off[numeric[0]][0], list) else off[numeric[0]][0]
    row[0] = str(float(row[0]) + 1)
    sets["one entry off"] = off
    sets.update(_first_step_wrong(problem, right, numeric[0]))
    return sets


def _first_step_wrong(problem: Problem, right: dict[str, Any], first: str) -> dict[str, dict[str, Any]]:
    """Work whose first step is wrong (nothing answered before it: a prepared check reads the
    answerer's own chains at that step from the shared runs): with the later steps carried on from
    it (by hand, to 3 decimals), with that step alone, and with a last answer of 2.5 (a count no
    mechanism takes: the answerer's own run fails, and the step is graded as check does then)."""
    wrong = copy.deepcopy(right[first])
    row = wrong if not isinstance(wrong[0], list) else wrong[0]
    row[0] = str(float(row[0]) + 1)
    out: dict[str, dict[str, Any]] = {"first step alone, wrong": {first: wrong}}
    truth = solve(problem, exact=False)
    shape = np.shape(truth.step(first).value)
    chain = Chain("hand", 3, overrides={first: np.asarray(_numbers_of(wrong), dtype=float).reshape(shape)})
    try:
        steps = {s.id: s for s in MECHANISMS[problem.kind].run(problem, chain)}
    except ValueError:  # (a count carried on as a fraction: not work anyone writes)
        steps = {}
    carried = {
        k: (s.value if isinstance(s.value, str) else written(as_step(chain.computed[k], s)))
        for k, s in steps.items()
        if k in right and (isinstance(s.value, str) or k in chain.computed)
    }
    carried = {k: v for k, v in carried.items() if _same_shape(v, right[k])}
    if carried:
        out["first step wrong, carried on"] = {**carried, first: wrong}
    last = [k for k, v in right.items() if isinstance(v, list)][-1]
    absurd = copy.deepcopy(right)
    absurd[first] = wrong
    row = absurd[last] if not isinstance(absurd[last][0], list) else absurd[last][-1]
    row[-1] = "2.5"
    out["first step wrong, last 2.5"] = absurd
    return out


def _same_shape(a: Any, b: Any) -> bool:
    """(a slip that changes a step's shape, a BPE step's pairs, leaves that step out of the work)"""
    return isinstance(a, str) or isinstance(b, str) or np.shape(a) == np.shape(b)


def _numbers_of(x: Any) -> Any:
    return [_numbers_of(v) for v in x] if isinstance(x, list) else float(x)


def _problems() -> list[tuple[str, Problem]]:
    out = [(name, load_problem(PROBLEMS / f"{name}.toml")) for name in EXAMPLES]
    return [*out, ("similarity", parse_problem(SIM, "sim.toml"))]


@pytest.mark.parametrize(("name", "problem"), _problems(), ids=[n for n, _ in _problems()])
def test_a_prepared_problem_grades_every_answer_as_check_does(name: str, problem: Problem) -> None:
    sets = _answer_sets(problem)
    assert len(sets) >= 4
    alone = {k: check(problem, a, "<answers>") for k, a in sets.items()}
    verdicts = {r.verdict for rep in alone.values() for r in rep.results}
    assert {"correct", "wrong"} <= verdicts  # the sets differ in what they earn
    prepared = Prepared(problem)
    for order in (list(sets), list(sets)[::-1]):
        for k in order:
            shared = check(problem, sets[k], "<answers>", Tolerance(), prepared=prepared)
            assert shared == alone[k], (name, k)
            assert shared.to_json() == alone[k].to_json()


def test_a_bounded_store_keeps_the_reports_the_same() -> None:
    problem = load_problem(PROBLEMS / "mh-self-attention.toml")
    sets = _answer_sets(problem)
    prepared = Prepared(problem, kept=40)  # fewer step values than two runs hold: runs are let go
    for k in ["right", "one entry off", "several wrong", "right"]:
        assert check(problem, sets[k], "<answers>", prepared=prepared) == check(problem, sets[k], "<answers>")
    assert 0 < prepared._weight <= 40


def test_a_prepared_problem_is_for_that_problem_only() -> None:
    a = load_problem(PROBLEMS / "decoder-dot.toml")
    b = load_problem(PROBLEMS / "decoder-dot.toml")  # equal, but another object: its Prepared is not a's
    with pytest.raises(ValueError, match="another problem"):
        check(a, {"scores": [1, 2, 2]}, "<answers>", prepared=Prepared(b))


def test_work_that_no_answer_changes_is_done_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted: after the first answerer's check, an all-right answer runs the mechanism no more, and
    a wrong one only with the answerer's own numbers in it."""
    problem = load_problem(PROBLEMS / "mh-self-attention.toml")
    sets = _answer_sets(problem)
    prepared = Prepared(problem)
    for a in sets.values():
        check(problem, a, "<answers>", prepared=prepared)
    made: list[Chain] = []
    init = Chain.__init__

    def counting(self: Chain, *args: Any, **kw: Any) -> None:
        init(self, *args, **kw)
        made.append(self)

    monkeypatch.setattr(Chain, "__init__", counting)
    check(problem, sets["right"], "<answers>", prepared=prepared)
    assert made == []
    check(problem, sets["one entry off"], "<answers>", prepared=prepared)
    assert made and all(c.overrides for c in made)  # each run carries the answerer's own numbers
    # the wrong entry is in the first step: no answer of theirs comes before it, so their own chains
    # there are the shared ones; their numbers are run once to their last answer (which says the run
    # does not fail, and names no slip), once to the end (for the note written from their numbers)
    assert len(made) == 2


def test_a_first_step_wrong_is_graded_from_the_shared_runs_as_from_its_own() -> None:
    """The answerer's own chains at a step with nothing answered before it are the shared runs' (an
    answer changes only what is computed after it): no run of their own for them, the same report."""
    problem = load_problem(PROBLEMS / "decoder-dot.toml")
    answers = {"scores": ["1", "2", "3"], "exponentials": ["2.718", "7.389", "20.086"]}
    prepared = Prepared(problem)
    shared = check(problem, answers, "<answers>", prepared=prepared)
    assert shared == check(problem, answers, "<answers>")
    assert [r.verdict for r in shared.results] == ["wrong", "carried"]
    from attncalc.check.answers import parse_answers
    from attncalc.check.runs import Runs

    runs = Runs(problem, parse_answers(answers, prepared.truth, "<answers>"), prepared)
    assert not runs.own_numbers_reach("scores")  # nothing answered before it: the shared runs serve
    assert runs.own_numbers_reach("exponentials")  # the answerer's scores come before it
    assert Runs(problem, parse_answers(answers, prepared.truth, "<answers>")).own_numbers_reach("scores")


@pytest.mark.parametrize("text", ["0.155", "-2", "12.5", "0", "-0.000", "0.1645", "123456789012345.5", "7"])
def test_plain_decimals_read_as_their_exact_value_rounded_once(text: str) -> None:
    """The fast reading of a plain decimal is the exact decimal (a fraction) rounded once to a double,
    with the decimals as written."""
    vals, decs = _numbers([text], "a.toml", "k", 3)
    assert vals[0] == float(Fraction(text))
    assert np.signbit(vals[0]) == text.startswith("-")
    assert decs[0] == (len(text.split(".")[1]) if "." in text else 3)


@pytest.mark.parametrize("text", ["٣", "1٫5", " 0.5", "+0.5", "−0.5", "1e3", "1/3"])
def test_other_numbers_are_read_by_the_grammar(text: str) -> None:
    """What is not ASCII digits with one point goes through attncalc's number grammar as before:
    read the same, or refused with its message."""
    from attncalc.errors import ProblemError
    from attncalc.numbers import parse_number, to_float

    try:
        expected = to_float(parse_number(text))
    except Exception:
        with pytest.raises(ProblemError):
            _numbers([text], "a.toml", "k", 3)
        return
    vals, _ = _numbers([text], "a.toml", "k", 3)
    assert vals[0] == expected


def test_reports_of_a_prepared_problem_share_no_lists() -> None:
    """The true values a prepared problem keeps as shown are copied into each report: changing one
    report's lists changes no other's."""
    problem = load_problem(PROBLEMS / "decoder-dot.toml")
    prepared = Prepared(problem)
    answers = {"scores": ["1", "2", "2"], "weights": ["0.155", "0.422", "0.422"]}
    first = check(problem, answers, "<answers>", prepared=prepared)
    first.results[1].expected[0] = "changed"
    second = check(problem, answers, "<answers>", prepared=prepared)
    assert second.results[1].expected == [0.155, 0.422, 0.422]
    assert second == check(problem, answers, "<answers>")
