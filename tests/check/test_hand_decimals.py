"""A hand chain is worked at each precision written up to 12 decimals. Answers copied in full from
`solve -f json` (17 significant digits: 13 to 20 decimals) made a hand chain at every one of those
precisions, with every usual slip: 280 runs of an encoder layer, 26 s for one wrong entry (tryout 33).
More digits than a calculator shows are matched by the float chain: the same verdicts, few runs."""

from __future__ import annotations

import numpy as np
import pytest

from attncalc.check import check
from attncalc.check import runs as check_runs
from attncalc.mechanisms import solve
from attncalc.parse import load_problem

from ..helpers import PROBLEMS


def test_answers_written_in_full_make_no_hand_chain_past_12_decimals(monkeypatch: pytest.MonkeyPatch) -> None:
    p = load_problem(PROBLEMS / "self-attention-scaled.toml")
    truth = solve(p, exact=False)
    last = truth.step_ids[-1]
    answers = {}
    for s in truth.steps:
        v = np.asarray(s.value, dtype=float)
        if v.dtype.kind == "f" and np.isfinite(v).all():
            answers[s.id] = v.tolist()  # full precision, as solve -f json writes it
    answers[last] = (np.asarray(answers[last]) + 1).tolist()  # the last step wrong, every entry
    hand: list[int] = []
    real = check_runs.Runs._run

    def counted(self, chain, shift, light):  # type: ignore[no-untyped-def]
        if chain.mode == "hand":
            hand.append(chain.decimals)
        return real(self, chain, shift, light)

    monkeypatch.setattr(check_runs.Runs, "_run", counted)
    verdicts = {r.id: r.verdict for r in check(p, answers, "a.json").results}
    assert verdicts[last] == "wrong" and all(v == "correct" for k, v in verdicts.items() if k != last), verdicts
    assert all(d <= 12 for d in hand), sorted(set(hand))
