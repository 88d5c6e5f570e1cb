"""The multi-head and positional-encoding examples agree with the oracles; `check` names each slip
students make here from answers built with it (numpy, written from the papers, with the slip in);
`generate` makes variants whose keys `check` accepts.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import attncalc

from .. import mh_reference as ref
from ..helpers import PROBLEMS

MH = ["mh-self-attention", "mh-cross-attention", "mh-causal-cache", "mh-grouped-query", "mh-rope"]


def raw(name: str) -> dict[str, Any]:
    return tomllib.loads((PROBLEMS / f"{name}.toml").read_text(encoding="utf-8"))


def val(d: Any, step: str) -> np.ndarray:
    return np.asarray(d.step(step).value, dtype=float)


def reference(r: dict[str, Any]) -> dict[str, np.ndarray]:
    g = r["given"]
    n = len(g["X"])
    m = len(g.get("memory", g["X"])) + len(r.get("cache", {}).get("K", []))
    allowed = ref.causal_lower_right(n, m) if g.get("mask") == "causal" else None
    keys = {k: g[k] for k in ("memory", "kv_heads", "b_Q", "b_K", "b_V", "W_O", "b_O") if k in g}
    return ref.multi_head(
        g["X"],
        g["W_Q"],
        g["W_K"],
        g["W_V"],
        g["heads"],
        allowed=allowed,
        rope_mode="interleaved" if g.get("positions") == "rope" else None,
        **keys,
    )


@pytest.mark.parametrize("name", [n for n in MH if n != "mh-causal-cache"])
def test_example_agrees_with_the_numpy_oracle_exact_and_numeric(name: str) -> None:
    r = raw(name)
    want = reference(r)
    for exact in (False, True):
        d = attncalc.solve(PROBLEMS / f"{name}.toml", exact=exact)
        for sid, value in want.items():
            if sid in d.step_ids:
                np.testing.assert_allclose(val(d, sid), value, rtol=0, atol=1e-9, err_msg=f"{name} {sid}")
        heads = r["given"]["heads"]
        assert all(f"head.{j}.weights" in d.step_ids for j in range(1, heads + 1))


def test_example_agrees_with_torch_multihead_attention() -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle here (pip install torch==2.13.0)")
    for name in ("mh-self-attention", "mh-cross-attention"):
        g = raw(name)["given"]
        dm, h = len(g["X"][0]), g["heads"]
        mha = torch.nn.MultiheadAttention(dm, h, batch_first=True, dtype=torch.float64)
        t = lambda x: torch.tensor(x, dtype=torch.float64)  # noqa: E731
        with torch.no_grad():
            mha.in_proj_weight.copy_(torch.cat([t(g["W_Q"]).T, t(g["W_K"]).T, t(g["W_V"]).T]))
            zeros = [0.0] * dm
            mha.in_proj_bias.copy_(torch.cat([t(g.get("b_Q", zeros)), t(g.get("b_K", zeros)), t(g.get("b_V", zeros))]))
            mha.out_proj.weight.copy_(t(g["W_O"]).T)
            mha.out_proj.bias.copy_(t(g.get("b_O", zeros)))
        X = t(g["X"])[None]
        mem = t(g.get("memory", g["X"]))[None]
        out, w = mha(X, mem, mem, need_weights=True, average_attn_weights=False)
        d = attncalc.solve(PROBLEMS / f"{name}.toml", exact=False)
        np.testing.assert_allclose(val(d, "output"), out[0].detach().numpy(), atol=1e-9)
        for j in range(h):
            np.testing.assert_allclose(val(d, f"head.{j + 1}.weights"), w[0, j].detach().numpy(), atol=1e-9)


def test_cache_example_equals_the_last_row_of_the_full_causal_computation() -> None:
    """<s> = [1, 0, 0, 0] and I = [1, 0, 1, 0] are cached (K, V = their rows times W_K, W_V); am is new."""
    r = raw("mh-causal-cache")
    g = r["given"]
    full_X = [[1, 0, 0, 0], [1, 0, 1, 0], g["X"][0]]
    np.testing.assert_allclose(np.array(full_X[:2]) @ np.array(g["W_K"]), r["cache"]["K"])
    np.testing.assert_allclose(np.array(full_X[:2]) @ np.array(g["W_V"]), r["cache"]["V"])
    want = ref.multi_head(
        full_X, g["W_Q"], g["W_K"], g["W_V"], g["heads"], W_O=g["W_O"], allowed=ref.causal_lower_right(3, 3)
    )
    d = attncalc.solve(PROBLEMS / "mh-causal-cache.toml")
    for sid in ("head.1.weights", "head.2.weights", "head.1.output", "head.2.output", "concat", "output"):
        np.testing.assert_allclose(val(d, sid), want[sid][-1:], atol=1e-9, err_msg=sid)
    np.testing.assert_allclose(val(d, "K"), want["K"], atol=1e-9)


def test_positions_examples() -> None:
    d = attncalc.solve(PROBLEMS / "positions-sinusoidal.toml")
    P = ref.sinusoidal(range(4), 4)
    np.testing.assert_allclose(val(d, "positions"), P, atol=1e-12)
    np.testing.assert_allclose(val(d, "X_pos"), np.array(raw("positions-sinusoidal")["given"]["X"]) + P, atol=1e-12)
    d = attncalc.solve(PROBLEMS / "positions-rope.toml")
    pos = np.arange(4)
    np.testing.assert_allclose(val(d, "scores"), np.cos(pos[None, :] - pos[:, None]), atol=1e-12)  # cos(pos_b − pos_a)
    assert "only the distance" in d.step("scores").note


# ------------------------------------------------------------------ named slips


def _check(problem: str | dict[str, Any], answers: dict[str, Any]) -> dict[str, Any]:
    rep = attncalc.check(problem, answers)
    return {r["id"]: r for r in rep.to_json()["results"]}


def r3(x: np.ndarray) -> list[Any]:
    return np.round(np.asarray(x, dtype=float), 3).tolist()


def test_slip_sqrt_d_model_instead_of_d_k() -> None:
    g = raw("mh-self-attention")["given"]
    S = ref.multi_head(g["X"], g["W_Q"], g["W_K"], g["W_V"], 2)["head.1.scores"]
    got = _check(PROBLEMS / "mh-self-attention.toml", {"head.1.scaled_scores": r3(S / np.sqrt(4))})
    assert got["head.1.scaled_scores"]["mistake"] == "sqrt_d_model"
    assert "√d_model instead of √d_k" in got["head.1.scaled_scores"]["note"]
    # d_k = 2 = √d_model: dividing by d_k gives the same numbers, so the note says both slips
    assert "or the scores were divided by d_k instead of √d_k" in got["head.1.scaled_scores"]["note"]


def test_slips_told_apart_name_one() -> None:
    """d_model = 4 in one head of d_k = 4: scores over d_k = 4 are dk_not_sqrt alone (√d_model = √d_k
    changes nothing, and nothing else gives S / 4); a typo in them names no slip."""
    g = raw("mh-self-attention")["given"]
    S = ref.multi_head(g["X"], g["W_Q"], g["W_K"], g["W_V"], 1)["head.1.scores"]
    one = {**raw("mh-self-attention"), "given": {**g, "heads": 1}}
    note = _check(one, {"head.1.scaled_scores": r3(S / 4)})["head.1.scaled_scores"]
    assert note["mistake"] == "dk_not_sqrt" and " or " not in note["note"]
    typo = r3(S / 2)
    typo[0][0] += 1
    typo_result = _check(one, {"head.1.scaled_scores": typo})["head.1.scaled_scores"]
    assert typo_result["verdict"] == "wrong" and typo_result.get("mistake") is None


def test_slip_heads_not_split() -> None:
    """One big head over all four columns: the weights softmax(Q Kᵀ / √4)."""
    g = raw("mh-self-attention")["given"]
    one = ref.multi_head(g["X"], g["W_Q"], g["W_K"], g["W_V"], 1)
    got = _check(PROBLEMS / "mh-self-attention.toml", {"head.1.weights": r3(one["head.1.weights"])})
    assert got["head.1.weights"]["mistake"] == "one_head"


def test_slip_heads_concatenated_in_the_wrong_order() -> None:
    g = raw("mh-self-attention")["given"]
    w = ref.multi_head(g["X"], g["W_Q"], g["W_K"], g["W_V"], 2)
    swapped = np.concatenate([w["head.2.output"], w["head.1.output"]], axis=1)
    assert _check(PROBLEMS / "mh-self-attention.toml", {"concat": r3(swapped)})["concat"]["mistake"] == "heads_reversed"


def test_slip_W_O_left_out() -> None:
    g = raw("mh-self-attention")["given"]
    w = ref.multi_head(g["X"], g["W_Q"], g["W_K"], g["W_V"], 2)
    cat = np.concatenate([w["head.1.output"], w["head.2.output"]], axis=1)
    assert _check(PROBLEMS / "mh-self-attention.toml", {"output": r3(cat)})["output"]["mistake"] == "no_W_O"


def test_slip_mask_after_the_softmax() -> None:
    """Softmax over every key, then the masked weights set to 0 (rows no longer sum to 1)."""
    g = raw("mh-rope")["given"]
    free = ref.multi_head(g["X"], g["W_Q"], g["W_K"], g["W_V"], 2, rope_mode="interleaved")
    late = free["head.1.weights"] * ref.causal_lower_right(3, 3)
    got = _check(PROBLEMS / "mh-rope.toml", {"head.1.weights": r3(late)})
    assert got["head.1.weights"]["mistake"] == "mask_after_softmax"


def test_slip_rope_rotated_the_wrong_way() -> None:
    g = raw("mh-rope")["given"]
    Q = np.array(g["X"]) @ np.array(g["W_Q"])
    q1 = Q[:, :2]
    backwards = ref.rope_interleaved(q1, -np.arange(3))  # turning by −θ
    got = _check(PROBLEMS / "mh-rope.toml", {"head.1.Q_rot": r3(backwards)})
    assert got["head.1.Q_rot"]["mistake"] == "rope_reversed"


def test_slip_sin_and_cos_swapped() -> None:
    P = ref.sinusoidal(range(4), 4)
    swapped = P.copy()
    swapped[:, 0::2], swapped[:, 1::2] = P[:, 1::2], P[:, 0::2]
    got = _check(PROBLEMS / "positions-sinusoidal.toml", {"positions": r3(swapped)})
    assert got["positions"]["mistake"] == "sin_cos_swapped"


def test_slip_frequency_without_the_two() -> None:
    """10000^(i/d) instead of 10000^(2i/d): the second pair turns by pos/10 instead of pos/100."""
    angles = np.arange(4)[:, None] / 10000 ** (np.arange(2)[None, :] / 4)
    got = _check(PROBLEMS / "positions-sinusoidal.toml", {"angles": r3(angles)})
    assert got["angles"]["mistake"] == "freq_no_two"


# ------------------------------------------------------------------ homework


@pytest.mark.parametrize(
    "args",
    [
        ["--kind", "multi-head", "--dim", "4", "--count", "2"],
        ["--kind", "multi-head", "--dim", "4", "--heads", "2", "--kv-heads", "1", "--mask", "causal"],
        ["--kind", "multi-head", "--dim", "4", "--positions", "rope", "--values", "decimal"],
        ["--kind", "positional-encoding", "--dim", "4"],
        ["--kind", "positional-encoding", "--dim", "2", "--positions", "rope"],
    ],
)
def test_generated_keys_are_accepted_by_check(cli: Any, tmp_path: Path, args: list[str]) -> None:
    out = tmp_path / "hw"
    result = cli("generate", "--out", str(out), "--seed", "3", *args)
    assert result.exit_code == 0, result.output
    keys = sorted((out / "answers").glob("*.toml"))
    assert keys
    for key in keys:
        report = json.loads(cli("check", "--problems", str(out), str(key), "--format", "json").stdout)
        assert report["summary"]["wrong"] == 0 and report["summary"]["carried"] == 0, key


def test_alibi_formula_keeps_its_markdown_table_cell() -> None:
    """|i − k| inside a Markdown table row would end the cell: the question sheet writes it \\vert."""
    d = attncalc.solve(
        {
            "kind": "multi-head",
            "given": {
                "X": [[1, 0], [0, 1]],
                "heads": 1,
                "W_Q": [[1, 0], [0, 1]],
                "W_K": [[1, 0], [0, 1]],
                "W_V": [[1, 0], [0, 1]],
                "positions": "alibi",
            },
        }
    )
    row = next(line for line in d.to_markdown(sheet="question").splitlines() if "[head.1.bias]" in line)
    assert row.count("|") == 4 and r"\vert i - k\vert" in row
