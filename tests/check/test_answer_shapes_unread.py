"""An answer of another shape than its step is refused for its shape before any of its entries is
read (reading 140,000 entries "1/3" for a step of 3 took 1.5 to 2 s), by ``attncalc check`` as by the
practice page, with the message it always had; an answer of another shape that stands (a bpe pair
table of the answerer's own pairs, after a merge answered otherwise) is read, and read the same as
when every answer was read first. No timings: the entry reader's calls are counted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.check import answers as answers_module
from attncalc.check import check, shapes
from attncalc.check.answers import parse_answers
from attncalc.check.grade import _shapes
from attncalc.mechanisms import solve
from attncalc.parse import load_problem

from ..helpers import PROBLEMS

# CS336's corpus after the merge e s (the tie's other pair, not the true s t), by hand: low 5, lower 2,
# widest 3, newest 6 as l o w | l o w e r | w i d es t | n e w es t; its distinct pairs in the order
# they first occur: l o (5 + 2), o w, w e (lower), e r, w i, i d, d es, es t (3 + 6), n e, e w, w es
OWN_PAIRS = [7, 7, 2, 2, 3, 3, 3, 9, 6, 6, 6]  # 11, where the true table after s t has 10
TRUE_FIRST = [7, 7, 8, 2, 3, 3, 3, 9, 9, 6, 6]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    parse, decimals = answers_module.parse_number, answers_module._decimals_of
    monkeypatch.setattr(answers_module, "parse_number", lambda x: calls.append(x) or parse(x))
    monkeypatch.setattr(answers_module, "_decimals_of", lambda x, d: calls.append(x) or decimals(x, d))
    return calls


def test_check_refuses_a_long_list_for_a_step_of_three_unread(cli: Any, tmp_path: Path, reads: list[Any]) -> None:
    """An answers file of about 1 MB, 140,000 entries "1/3" for decoder-dot's scores (3 tokens: 3 entries)."""
    f = tmp_path / "a.toml"
    f.write_text("scores = [" + ", ".join(['"1/3"'] * 140_000) + "]\n", encoding="utf-8")
    assert f.stat().st_size > 900_000  # (about 1 MB: under the default --max-file-size of 1M)
    r = cli("check", str(PROBLEMS / "decoder-dot.toml"), str(f))
    assert r.exit_code == 2
    assert (
        r.stderr.strip() == f"attncalc: error: {f}: scores: expected a list of 3 numbers, got a list of 140000 numbers"
    )
    assert len(reads) <= 3 and "Traceback" not in r.stderr


def test_a_matrix_for_a_list_is_refused_unread(reads: list[Any]) -> None:
    problem = load_problem(PROBLEMS / "decoder-dot.toml")
    with pytest.raises(Exception, match=r"scores: expected a list of 3 numbers, got a 300×100 matrix"):
        check(problem, {"scores": [["1/3"] * 100] * 300}, "a.toml")
    assert reads == []


def _both_ways(raw: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], list[Any]]:
    """The answers read with their shapes seen first, and with every answer read first (as before)."""
    problem = load_problem(PROBLEMS / "bpe-cs336.toml")
    truth = solve(problem, exact=False, carry_rounded=False)

    def own(labels: dict[str, str]) -> dict[str, tuple[int, ...]]:
        return _shapes(problem, labels)

    glanced = parse_answers(raw, truth, "a.toml", own_shapes=own)
    with monkeypatch.context() as m:
        m.setattr(shapes, "glanced", lambda raw, d, unanswered=False: {})
        every = parse_answers(raw, truth, "a.toml", own_shapes=own)
    return glanced, every


def _same(a: list[Any], b: list[Any]) -> None:
    assert [x.id for x in a] == [x.id for x in b]
    for x, y in zip(a, b, strict=True):
        if isinstance(x.values, str):
            assert x.values == y.values and x.written == y.written
        else:
            assert np.array_equal(x.values, y.values) and np.array_equal(x.decimals, y.decimals)
            assert x.written == y.written


@pytest.mark.parametrize(
    "own",
    [
        OWN_PAIRS,
        [f"{v}.0" for v in OWN_PAIRS],  # decimals written: the file's precision is 1 decimal, for all
        [*OWN_PAIRS, "?", "?", "?", "?", "?"],  # at the page's size (16 places), "?" past the pairs
    ],
)
def test_a_pair_table_of_the_answerers_own_pairs_stands_and_is_read_as_before(
    own: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = {"1.pairs": TRUE_FIRST, "1.merge": "e s", "2.pairs": own}
    glanced, every = _both_ways(raw, monkeypatch)
    _same(glanced, every)
    pairs = next(a for a in glanced if a.id == "2.pairs")
    assert list(pairs.values) == OWN_PAIRS  # the answerer's own 11 pairs, read
    first = next(a for a in glanced if a.id == "1.pairs")
    assert set(first.decimals) == ({1} if isinstance(own[0], str) and "." in own[0] else {0})


def test_the_answerers_own_pairs_are_graded_against_their_own_merge() -> None:
    """e s, the tie's other pair, then the pairs counted by hand after it: the table stands (11 pairs,
    not refused for the true table's 10) and is right for the answerer's own merge."""
    problem = load_problem(PROBLEMS / "bpe-cs336.toml")
    report = check(problem, {"1.pairs": TRUE_FIRST, "1.merge": "e s", "2.pairs": OWN_PAIRS}, "a.toml")
    verdicts = {r.id: r.verdict for r in report.results}
    assert verdicts["1.pairs"] == "correct" and verdicts["2.pairs"] in ("correct", "carried"), verdicts
