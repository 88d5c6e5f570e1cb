"""An answer whose entries match different chains (some the true value, some only a hand chain): the
note says which chain each entry matched, at which precision, and the command that shows it."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import numpy as np

from ..helpers import PROBLEMS


def _r3(x: float) -> float:
    return float(Decimal(repr(float(x))).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))


def test_entries_matching_different_chains_are_each_named(cli: Any, tmp_path: Path) -> None:
    # self-attention-scaled: Q = K = V = X, row 3 of X is [1, 1]; its scaled scores [1, 1, 2]/√2
    X = np.array([[1, 0], [0, 1], [1, 1]], dtype=float)
    s = X[2] @ X.T / np.sqrt(2)
    truth = np.exp(s) / np.exp(s).sum() @ X
    # by hand, every step rounded to 3 decimals, no maximum subtracted: 0.707, 1.414 -> 2.028, 4.113;
    # z = 8.169; weights 0.248, 0.248, 0.503; o_3,1 = 0.248 + 0.503 = 0.751
    e = [_r3(float(np.exp(_r3(v)))) for v in s]
    z = _r3(sum(e))
    w = [_r3(v / z) for v in e]
    hand = _r3(w[0] * 1 + w[1] * 0 + w[2] * 1)
    assert (hand, _r3(truth[0]), _r3(truth[1])) == (0.751, 0.752, 0.752)
    answers = tmp_path / "a.toml"
    answers.write_text(
        'problem = "self-attention-scaled.toml"\n'
        f"output = [[0.802, 0.599], [0.599, 0.802], [{hand}, {_r3(truth[1])}]]\n"
    )
    out = cli("check", "--problems", str(PROBLEMS), str(answers), "--width", "200").stdout
    text = " ".join(out.split())
    assert "✓ correct" in out
    assert "Matches the hand chain (every step rounded and carried forward)" not in text
    assert "match different chains" in text
    assert "o[3,2] the true value" in text
    assert "o[3,1] the hand chain without the maximum subtracted, every step rounded to 3 decimals" in text
    assert 'attncalc solve --carry --decimals 3 shows it with settings.shift_max = "never"' in text
