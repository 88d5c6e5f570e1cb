"""What a file can make large is bounded before the work starts (docs/interface.md, "Limits").

online-softmax with block = 1 over 4,000 scores took half a minute, and over 65,536 scores (within
the scores limit) did not finish: nothing bounded the number of blocks. attention-backward with
jacobian = true wrote 130 MB of JSON in 13 s and 1.35 GB.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.parse.limits import MAX_BLOCKS, MAX_JACOBIAN

from ..helpers import ROOT, one_line_refusal, run_cli


def _online(tmp_path: Path, m: int, block: int, rows: int = 1) -> Path:
    scores = [[float((i * 7 + r) % 11) / 4 for i in range(m)] for r in range(rows)]
    f = tmp_path / "o.json"
    f.write_text(json.dumps({"kind": "online-softmax", "given": {"scores": scores, "block": block}}))
    return f


@pytest.mark.parametrize(("m", "block"), [(4_000, 1), (65_536, 1), (65_536, 1_000), (MAX_BLOCKS + 1, 1)])
def test_too_many_blocks_are_refused_before_any_is_worked(tmp_path: Path, m: int, block: int) -> None:
    f = _online(tmp_path, m, block)
    err = one_line_refusal(run_cli("solve", str(f), "-f", "json", timeout=120), str(f), "given.block")
    blocks = -(-m // block)
    assert f"{blocks:,} blocks" in err and f"at most {MAX_BLOCKS}" in err
    assert f"a block of at least {-(-m // MAX_BLOCKS):,}" in err


def test_the_most_blocks_are_worked_and_give_the_softmax(cli: Any, tmp_path: Path) -> None:
    """MAX_BLOCKS blocks of one key: the row's softmax, as numpy computes it from the scores."""
    f = _online(tmp_path, MAX_BLOCKS, 1, rows=2)
    result = cli("solve", str(f), "-f", "json")
    assert result.exit_code == 0, result.output
    scores = np.array(json.loads(f.read_text())["given"]["scores"])
    expected = np.exp(scores - scores.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    steps = {s["id"]: s for s in json.loads(result.stdout)["steps"]}
    assert np.allclose(np.array(steps["weights"]["value"], dtype=float), expected, atol=1e-12)


def _backward(tmp_path: Path, n: int, heads: int, jacobian: bool) -> Path:
    rng = np.random.default_rng(n)
    d = 2 * heads
    raw = {
        "kind": "attention-backward",
        "score": "scaled-dot",
        "settings": {"jacobian": jacobian},
        "given": {
            "X": rng.integers(-2, 3, (n, d)).tolist(),
            "heads": heads,
            **{w: rng.integers(-1, 2, (d, d)).tolist() for w in ("W_Q", "W_K", "W_V")},
            "grad_output": rng.integers(-1, 2, (n, d)).tolist(),
        },
    }
    f = tmp_path / "b.json"
    f.write_text(json.dumps(raw))
    return f


def test_a_jacobian_past_the_limit_is_refused_before_the_work(tmp_path: Path) -> None:
    n, heads = 48, 2  # 48 × 48 × 48 × 2 = 221,184 entries
    f = _backward(tmp_path, n, heads, True)
    err = one_line_refusal(run_cli("solve", str(f), "-f", "json", timeout=120), str(f), "settings.jacobian")
    assert f"{n * n * n * heads:,} Jacobian entries" in err and f"at most {MAX_JACOBIAN:,}" in err
    # the same problem without the Jacobian is within the limits
    assert run_cli("solve", str(_backward(tmp_path, n, heads, False)), "-f", "json", timeout=120).returncode == 0


def test_a_jacobian_within_the_limit_is_written(cli: Any, tmp_path: Path) -> None:
    """Each query row's softmax Jacobian, diag(p) − p pᵀ, with p = softmax(X W_Q (X W_K)ᵀ / √d_k) by numpy."""
    n = 4
    f = _backward(tmp_path, n, 1, True)
    result = cli("solve", str(f), "-f", "json")
    assert result.exit_code == 0, result.output
    steps = {s["id"]: s for s in json.loads(result.stdout)["steps"]}
    g = json.loads(f.read_text())["given"]
    X, WQ, WK = (np.array(g[k], dtype=float) for k in ("X", "W_Q", "W_K"))
    S = (X @ WQ) @ (X @ WK).T / np.sqrt(WQ.shape[1])
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    for i in range(n):
        expected = np.diag(P[i]) - np.outer(P[i], P[i])
        got = np.array(steps[f"head.1.jacobian.{i + 1}"]["value"], dtype=float)
        assert np.allclose(got, expected, atol=1e-12), i


def test_the_limits_are_documented() -> None:
    text = (ROOT / "docs" / "interface.md").read_text(encoding="utf-8")
    assert f"{MAX_BLOCKS} blocks" in text and f"{MAX_JACOBIAN:,}" in text


def _online_v(tmp_path: Path, rows: int, m: int, block: int, d_v: int) -> Path:
    scores = [[float((i * 5 + r) % 7) / 3 for i in range(m)] for r in range(rows)]
    V = [[float((i + j) % 3) for j in range(d_v)] for i in range(m)]
    f = tmp_path / "ov.json"
    f.write_text(json.dumps({"kind": "online-softmax", "given": {"scores": scores, "V": V, "block": block}}))
    return f


def test_running_outputs_past_the_limit_are_refused_before_the_work(tmp_path: Path) -> None:
    """1,000 rows × 64 blocks × 64 values' columns: 4,096,000 running outputs (225 MB of JSON) refused
    up front, naming the block and the smallest block that fits (64 keys in one block: 64,000)."""
    from attncalc.parse.limits import MAX_RUNNING

    f = _online_v(tmp_path, 1_000, 64, 1, 64)
    err = one_line_refusal(run_cli("solve", str(f), "-f", "json", timeout=120), str(f), "given.block")
    assert "4,096,000 running outputs" in err and f"at most {MAX_RUNNING:,}" in err
    assert "a block of at least 64" in err
    assert run_cli("solve", str(_online_v(tmp_path, 1_000, 64, 64, 64)), "-f", "json", timeout=120).returncode == 0


def test_rows_that_cannot_fit_even_one_block_say_so(tmp_path: Path) -> None:
    f = _online_v(tmp_path, 1_100, 2, 1, 64)  # 1,100 × 64 = 70,400 in one block already
    err = one_line_refusal(run_cli("solve", str(f), "-f", "json", timeout=120), str(f), "given.block")
    assert "fewer rows or values' columns: even one block keeps 70,400" in err


def test_the_largest_running_outputs_are_worked_and_give_softmax_times_v(cli: Any, tmp_path: Path) -> None:
    """256 rows × 4 blocks × 64 columns = 65,536, the limit: the output is softmax(S) V, by numpy."""
    f = _online_v(tmp_path, 256, 8, 2, 64)
    result = cli("solve", str(f), "-f", "json")
    assert result.exit_code == 0, result.output
    raw = json.loads(f.read_text())["given"]
    S, V = np.array(raw["scores"]), np.array(raw["V"])
    w = np.exp(S - S.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    steps = {s["id"]: s for s in json.loads(result.stdout)["steps"]}
    assert np.allclose(np.array(steps["output"]["value"], dtype=float), w @ V, atol=1e-9)


def test_queries_and_keys_making_too_many_scores_are_refused(tmp_path: Path) -> None:
    """20,000 queries and keys of width 1 asked for 400 million scores (it ran out of a minute)."""
    f = tmp_path / "qk.json"
    f.write_text(
        json.dumps({"kind": "online-softmax", "given": {"Q": [[1.0]] * 20_000, "K": [[1.0]] * 20_000, "block": 400}})
    )
    err = one_line_refusal(run_cli("solve", str(f), "-f", "json", timeout=120), str(f), "given.Q")
    assert "400,000,000 scores" in err and "at most 65,536" in err
