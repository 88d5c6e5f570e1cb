"""DPO's per-pair lines are written when a view asks, not on every run: a check of 24,000 pairs with a
step written in full reran the problem 78 times and formatted 9 million numbers (35 s). The lines are
the same: β · r_w with r_w = π_θ(y_w) − π_ref(y_w) (by hand for pair 1: 0.1 · (−1 − (−1.5)) = 0.05)."""

from __future__ import annotations

import pytest

from attncalc.derivation.arith import Chain
from attncalc.mechanisms import MECHANISMS, dpo
from attncalc.parse import parse_problem


def test_a_run_writes_no_pair_line_until_a_view_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    n = 500
    given = {
        "beta": 0.1,
        "policy_chosen": [-1.0] * n,
        "reference_chosen": [-1.5] * n,
        "policy_rejected": [-2.0] * n,
        "reference_rejected": [-1.0] * n,
    }
    p = parse_problem({"kind": "dpo", "given": given}, "d.json")
    written: list[object] = []
    real = dpo.fmt
    monkeypatch.setattr(dpo, "fmt", lambda x, d, *a: written.append(x) or real(x, d, *a))
    steps = {s.id: s for s in MECHANISMS["dpo"].run(p, Chain("float", 3))}
    # (the loss's one line adds the n losses: the per-pair steps wrote 5 n more, now none)
    assert len(written) <= n + 10, len(written)
    assert steps["chosen_rewards"].written[0] == "0.1 · 0.5"
    assert steps["rejected_rewards"].written[n - 1] == "0.1 · (-1)"
