"""Problems of many short rows, and answer keys of many steps (issue 38, hostile tryout 31).

A dpo file of 24,000 one-token pairs (384 KB) took 127 s to be refused: every row read summed the
entries of every vector read before it. A sequence of 99,000 probabilities answered with 45,000 true
values took over 300 s: each answer looked its step up among all the steps, copied the answers
graded before it and scanned them. These tests hold the work per row and per answer constant,
counting the looks (no timings); the refusals and reports are checked against values worked out
here."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc.check import check
from attncalc.errors import ProblemError
from attncalc.parse import parse_problem
from attncalc.parse.reader import Reader


class _CountedDict(dict):  # type: ignore[type-arg]
    """A dict that counts the times it is walked through."""

    walks = 0

    def values(self) -> Any:
        _CountedDict.walks += 1
        return super().values()

    def items(self) -> Any:
        _CountedDict.walks += 1
        return super().items()

    def __iter__(self) -> Any:
        _CountedDict.walks += 1
        return super().__iter__()


def test_counting_a_row_does_not_walk_the_rows_read_before_it() -> None:
    r = Reader("p.json")
    r.entries = _CountedDict()
    _CountedDict.walks = 0
    rows = [[0.0] for _ in range(5000)]
    for i, row in enumerate(rows):
        r.count(row, f"given.x[{i}]", 1)
    assert r.total == 5000
    assert _CountedDict.walks == 0


def test_a_row_read_twice_counts_once() -> None:
    r = Reader("p.json")
    x = [[1, 2], [3, 4]]
    r.count(x, "given.X", 4)
    r.count(x, "given.X", 4)  # a layer's sublayers read X again
    assert r.total == 4


def test_a_dpo_file_of_many_short_rows_is_refused_naming_the_key() -> None:
    rows = [[0] for _ in range(24_000)]
    raw = {
        "kind": "dpo",
        "given": {
            "beta": 0.1,
            **{k: rows for k in ("policy_chosen", "policy_rejected", "reference_chosen", "reference_rejected")},
        },
    }
    with pytest.raises(ProblemError) as e:
        parse_problem(raw, "dpo.json")
    # four sequences of 24,000 entries: the fifth 24,000 passes 100,000 (the first four are 96,000)
    assert e.value.key.startswith("given.")
    assert "a problem gives at most 100,000 numbers" in str(e.value)


def _sequence(n: int) -> dict[str, Any]:
    rng = np.random.default_rng(4)
    return {"kind": "sequence", "given": {"probabilities": [round(float(x), 2) for x in rng.uniform(0.05, 0.95, n)]}}


def _opcodes_of_a_check(n: int) -> int:
    """The Python instructions one check of an n-probability sequence's answer key runs (every step
    answered with its true value): a count, not a time, the same on every machine."""
    p = parse_problem(_sequence(n), "seq.json")
    truth = attncalc.solve(p, exact=False)
    key = {s.id: np.round(np.asarray(s.value, dtype=float), 6).tolist() for s in truth.steps}
    check(p, key, "warm")  # (imports and first-use caches out of the count)
    count = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        frame.f_trace_opcodes = True
        count += event == "opcode"
        return tracer

    sys.settrace(tracer)
    try:
        report = check(p, key, "key")
    finally:
        sys.settrace(None)
    assert {r.verdict for r in report.results} == {"correct"} and len(report.results) == len(truth.steps)
    return count


def test_grading_an_answer_key_grows_with_the_answers_not_their_square() -> None:
    """Four times the answered steps, about four times the work (3.9 here; it was 10.2, and 45,000
    answered steps took over 300 s: each answer copied and scanned the answers graded before it)."""
    small, large = _opcodes_of_a_check(200), _opcodes_of_a_check(800)
    assert large / small < 5.5


def test_the_evidence_of_a_slip_is_every_answer_but_the_wrong_ones_with_no_slip() -> None:
    from attncalc.check.picks import Evidence

    by_id: dict[str, Any] = {k: object() for k in ("a", "b", "c", "d")}
    status = {"a": "correct", "b": "wrong", "c": "wrong"}
    named = {"c": ("slip", None)}
    ev = Evidence(by_id, status, named)  # type: ignore[arg-type]
    assert dict(ev) == {k: by_id[k] for k in ("a", "c", "d")}  # b: wrong with nothing named; d: not graded yet
    assert len(ev) == 3 and "b" not in ev and ev["c"] is by_id["c"]
    status["d"] = "wrong"  # read when asked: what grading knows at the time
    assert "d" not in ev


def test_a_sequence_answered_in_part_grades_as_worked_out_here(tmp_path: Path) -> None:
    """The perplexity of 2,000 probabilities answered right, and one step wrong."""
    raw = _sequence(2000)
    probs = np.asarray(raw["given"]["probabilities"])
    p = parse_problem(raw, "seq.json")
    truth = attncalc.solve(p, exact=False)
    ppl = float(np.exp(-np.mean(np.log(probs))))  # perplexity = exp of the mean negative log-likelihood
    assert float(truth["perplexity"]) == pytest.approx(ppl, rel=1e-12)
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"perplexity": round(ppl, 3) + 1}))
    report = check(p, json.loads(path.read_text()), "a")
    assert [r.verdict for r in report.results] == ["wrong"]
