"""Exact mode stays bounded in work on every problem the size bound admits (issue 17).

Exact forms stop, with the usual note, where a step would exceed the budget (attncalc/budget.py):
the same problem stops at the same step on every machine, because the budget counts work, not
time. From that step on the values are those of --no-exact. The examples are the issue's: each ran
for 13 s to minutes before. The CLI runs in a subprocess whose time bound only catches a hang.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sympy as sp

from attncalc import budget
from attncalc.budget import MAX_EXACT_STEP, MAX_EXACT_WORK, Budget, fast_float, matmul_size

from .helpers import run_cli


def _rows(n: int, width: int, f: Any) -> list[list[Any]]:
    return [[f(i, j) for j in range(width)] for i in range(n)]


def _seq2seq(steps: int) -> dict[str, Any]:
    w = [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]]
    onehot = _rows(steps, 2, lambda i, j: int(i % 2 == j))
    return {
        "kind": "seq2seq",
        "tokens": [f"t{i}" for i in range(steps)],
        "encoder": {"cell": "gru", "layout": "gates", "x": onehot, "W_r": w, "W_z": w, "W_h": w},
        "decoder": {
            "cell": "gru",
            "attention": "luong",
            "score": "dot",
            "inputs": onehot,
            "W_r": w,
            "W_z": w,
            "W_h": w,
            "W_att": [[1, 0, 0, 1], [0, 1, 1, 0]],
            "W_out": [[1, 0], [0, 1], [-1, 1]],
            "vocab": ["I", "am", "<eos>"],
            "targets": ["I", "am"] * (steps // 2),
        },
    }


ISSUE_EXAMPLES = {
    # a GRU-Luong seq2seq with 50 encoder and 50 decoder steps: past 120 s
    "seq2seq 50+50": _seq2seq(50),
    # a GRU with entries of 1e150: past 60 s in mpmath
    "gru 1e150": {
        "kind": "gru",
        "given": {
            "x": [[1e150, 1e150], [1e150, -1e150]],
            "h0": [1e150, 1e150],
            "weight_ih": _rows(6, 2, lambda i, j: round(0.1 * (i - j), 1)),
            "weight_hh": _rows(6, 2, lambda i, j: round(0.1 * (i + j) - 0.2, 1)),
        },
        "cell": {"layout": "pytorch"},
    },
    # a 20 × 20 self-attention, just under the 400-entry bound: 13-19 s
    "self-attention 20x20": {
        "kind": "self-attention",
        "given": {"X": _rows(20, 20, lambda i, j: round(math.sin(3 * i + j), 1))},
    },
    # an LSTM over 150 steps: 18 s
    "lstm 150 steps": {
        "kind": "lstm",
        "given": {
            "x": _rows(150, 2, lambda i, j: round(math.cos(i + 2 * j), 1)),
            **{k: [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]] for k in ("W_f", "W_i", "W_c", "W_o")},
            "b_f": [1, 1],
        },
    },
}


@pytest.mark.parametrize("name", sorted(ISSUE_EXAMPLES))
def test_the_issues_slow_examples_stop_exact_forms_within_the_budget(tmp_path: Path, name: str) -> None:
    """Each stops (or skips) exact forms with a note; from that step on the values are --no-exact's."""
    f = tmp_path / "p.json"
    f.write_text(json.dumps(ISSUE_EXAMPLES[name]))
    exact = run_cli("solve", "-f", "json", str(f), timeout=120)
    assert exact.returncode == 0, exact.stderr
    numeric = run_cli("solve", "-f", "json", "--no-exact", str(f), timeout=120)
    d, n = json.loads(exact.stdout), json.loads(numeric.stdout)
    notes = [x for x in d["notes"] if x.startswith(("Exact forms stop", "Exact forms skipped"))]
    assert len(notes) == 1, d["notes"]
    if notes[0].startswith("Exact forms stop"):
        stop = notes[0].split("'")[1]
        ids = [s["id"] for s in d["steps"]]
        k = ids.index(stop) if stop in ids else next(i for i, s in enumerate(d["steps"]) if s.get("exact") is None)
        assert all(s["exact"] is None for s in d["steps"][k:] if not s["id"].endswith("prediction"))
        assert any(s.get("exact") is not None for s in d["steps"][:k]) or k == 0
    for a, b in zip(d["steps"], n["steps"], strict=True):
        if a.get("exact") is None:
            assert a["value"] == b["value"], a["id"]  # the numeric pass itself, not an approximation of it
        elif not a["id"].endswith("prediction"):  # a prediction's "exact" is its label
            assert np.allclose(a["value"], b["value"], rtol=1e-9, atol=1e-12), a["id"]


def test_which_rule_stops_each_example() -> None:
    """The budget is work, not time: the same step and reason on every machine."""
    from attncalc.mechanisms import solve
    from attncalc.problem import parse_problem

    want = {
        "seq2seq 50+50": "an entry grew past 200 terms",
        "gru 1e150": "Exact forms skipped: an input is 1e+150 in size",
        "self-attention 20x20": "Exact forms stop at 'weights': its entries grew past 4000 terms together",
        "lstm 150 steps": "an entry grew past 200 terms",
    }
    for name, raw in ISSUE_EXAMPLES.items():
        d = solve(parse_problem(raw, f"{name}.json"))
        assert any(want[name] in n for n in d.notes), (name, d.notes)


# ------------------------------------------------------------------ the budget's rules, one by one


def _sum_of(n: int) -> Any:
    """An exact form of 2n + 1 nodes: exp(1/3) + exp(1/6) + … (n terms)."""
    x = sp.symbols("x")
    return sum(sp.exp(x / k) for k in range(1, n + 1)).subs(x, sp.Rational(1, 3))


def test_one_entry_past_the_size_limit_stops() -> None:
    big = np.array([_sum_of(120)], dtype=object)
    assert budget.expr_size(big[0]) > budget.MAX_EXACT_SIZE
    assert Budget().exceeded_by(big) == "an entry grew past 200 terms"


def test_a_step_past_its_total_stops() -> None:
    step = np.array([_sum_of(40)] * 60, dtype=object)  # each entry fits, all of them do not
    assert sum(budget.expr_size(e) for e in step) > MAX_EXACT_STEP
    assert Budget().exceeded_by(step) == f"its entries grew past {MAX_EXACT_STEP} terms together"


def test_the_derivations_total_stops() -> None:
    b = Budget()
    step = np.array([_sum_of(40)] * 20, dtype=object)
    per_step = sum(budget.expr_size(e) for e in step)
    for _ in range(MAX_EXACT_WORK // per_step):
        assert b.exceeded_by(step) is None
    assert b.exceeded_by(step) == f"the exact forms grew past {MAX_EXACT_WORK} terms in all"


@pytest.mark.parametrize(
    "e",
    [sp.Rational(10**13), sp.Rational(10**13, 3), sp.exp(28), sp.exp(-(10**13))],
    ids=["a large number", "a large fraction", "a large value", "a large number in a small value"],
)
def test_numbers_past_10_to_the_12_stop(e: Any) -> None:
    assert Budget().exceeded_by(np.array([e], dtype=object)) == "numbers in them grew past 10^12 in size"


def test_the_wall_clock_is_a_backstop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "MAX_EXACT_SECONDS", 0.0)
    assert Budget().exceeded_by(np.array([sp.Integer(1)], dtype=object)) == "they took more than 0 seconds"


def test_a_matrix_product_is_estimated_before_it_is_formed() -> None:
    """Numbers times numbers make one number; an identity adds nothing; symbolic entries add up."""
    ones = np.array([[sp.Integer(1)] * 20] * 20, dtype=object)
    eye = np.array([[sp.Integer(int(i == j)) for j in range(20)] for i in range(20)], dtype=object)
    assert matmul_size(ones, eye) == 400  # 400 plain numbers
    e = sp.exp(sp.Rational(1, 3))  # 2 nodes
    sym = np.array([[e] * 20] * 20, dtype=object)
    assert matmul_size(sym, ones) == 400 * 20 * (2 + 0 + 1) + 400  # each of 400 sums: 20 terms of e·1


def test_fast_float_is_the_exact_value_rounded() -> None:
    """40 digits: the double nearest the exact value (sympy's evalf at 30 digits is the oracle),
    also where a float evaluation would lose it all (exp(11300)/(1 + exp(11300)) is 1, not nan)."""
    forms = [
        sp.Rational(1, 3),
        1 / (1 + 2 * sp.E),
        sp.tanh(sp.tanh(sp.Rational(1, 2)) + sp.sqrt(2)),
        sp.log(1 + sp.exp(-50)),
        sp.exp(11300) / (1 + sp.exp(11300)),
        sp.Max(sp.Rational(-1, 2), 0),
    ]
    got = fast_float(np.array(forms, dtype=object))
    assert got.tolist() == [float(sp.N(f, 30)) for f in forms]
