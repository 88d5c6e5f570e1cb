"""`[cell] order = "xh"`: the per-gate layout's weights over [x; h], as textbooks and blog
posts write W [x_t; h_(t−1)], checked against PyTorch's cells with the weights concatenated in that
order (W_* = [W_i* | W_h*]), and the same problem written in the default order [h; x]."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.errors import ProblemError

from ..helpers import solve_raw

torch = pytest.importorskip("torch")

NAMES = {"rnn": ["W"], "lstm": ["W_i", "W_f", "W_c", "W_o"], "gru": ["W_r", "W_z", "W_h"]}  # PyTorch's gate order


def _tables(kind: str, cell: Any, order: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The torch cell's weights in the per-gate layout, each W_* = [W_i* | W_h*] (xh) or [W_h* | W_i*]."""
    w = {k: v.detach().numpy().astype(float) for k, v in cell.named_parameters()}
    G = len(NAMES[kind])
    Wi, Wh = np.split(w["weight_ih"], G), np.split(w["weight_hh"], G)
    bi, bh = np.split(w["bias_ih"], G), np.split(w["bias_hh"], G)
    given: dict[str, Any] = {}
    for k, name in enumerate(NAMES[kind]):
        parts = [Wi[k], Wh[k]] if order == "xh" else [Wh[k], Wi[k]]
        given[name] = np.concatenate(parts, axis=1).tolist()
        if kind == "gru" and name == "W_h":  # the candidate: r applies to W_hn h + b_hn only
            given["b_h"], given["b_hn"] = bi[k].tolist(), bh[k].tolist()
        else:
            given["b" + name[1:]] = (bi[k] + bh[k]).tolist()
    opts: dict[str, Any] = {"layout": "gates", "order": order}
    if kind == "gru":
        opts["reset"] = "after"  # PyTorch's GRU
    return given, opts


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
@pytest.mark.parametrize("seed", range(3))
def test_xh_order_matches_torch(kind: str, seed: int) -> None:
    d_x, d_h, T = 3, 2, 3  # d_x ≠ d_h: a split at the wrong column would not even fit
    torch.manual_seed(seed)
    cell = {"rnn": torch.nn.RNNCell, "lstm": torch.nn.LSTMCell, "gru": torch.nn.GRUCell}[kind](d_x, d_h).double()
    rng = np.random.default_rng(seed)
    xs, h0 = rng.uniform(-1, 1, (T, d_x)), rng.uniform(-0.5, 0.5, d_h)
    given, opts = _tables(kind, cell, "xh")
    given |= {"x": xs.tolist(), "h0": h0.tolist()}
    d = solve_raw({"kind": kind, "given": given, "cell": opts}, exact=False)
    h, c = torch.tensor(h0).unsqueeze(0), torch.zeros(1, d_h, dtype=torch.float64)
    for t in range(1, T + 1):
        x = torch.tensor(xs[t - 1]).unsqueeze(0)
        if f"{t}.hx" in d.step_ids:  # the concatenation is written [x_t; h_(t−1)]
            np.testing.assert_allclose(np.asarray(d[f"{t}.hx"], dtype=float), np.r_[xs[t - 1], h[0].detach().numpy()])
        if kind == "lstm":
            h, c = cell(x, (h, c))
        else:
            h = cell(x, h)
        np.testing.assert_allclose(np.asarray(d[f"{t}.h"], dtype=float), h.detach().numpy()[0], atol=1e-12)
    hx_given, hx_opts = _tables(kind, cell, "hx")
    hx_given |= {"x": xs.tolist(), "h0": h0.tolist()}
    same = solve_raw({"kind": kind, "given": hx_given, "cell": hx_opts}, exact=False)
    np.testing.assert_allclose(np.asarray(same[f"{T}.h"], dtype=float), np.asarray(d[f"{T}.h"], dtype=float))


def test_gru_reset_before_reads_x_then_r_h() -> None:
    """Cho et al.'s candidate with [x; r ⊙ h]: tanh(W_h [x; r ⊙ h] + b_h) (numpy, from the formula)."""
    rng = np.random.default_rng(4)
    d_x, d_h = 2, 3
    W = {g: rng.uniform(-1, 1, (d_h, d_x + d_h)) for g in "rzh"}
    b = {g: rng.uniform(-0.5, 0.5, d_h) for g in "rzh"}
    x, h = rng.uniform(-1, 1, d_x), rng.uniform(-1, 1, d_h)
    given = {f"W_{g}": W[g].tolist() for g in "rzh"} | {f"b_{g}": b[g].tolist() for g in "rzh"}
    given |= {"x": [x.tolist()], "h0": h.tolist()}
    d = solve_raw({"kind": "gru", "given": given, "cell": {"reset": "before", "order": "xh"}}, exact=False)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    r, z = sig(W["r"] @ np.r_[x, h] + b["r"]), sig(W["z"] @ np.r_[x, h] + b["z"])
    n = np.tanh(W["h"] @ np.r_[x, r * h] + b["h"])
    np.testing.assert_allclose(np.asarray(d["1.rhx"], dtype=float), np.r_[x, r * h], atol=1e-12)
    np.testing.assert_allclose(np.asarray(d["1.h"], dtype=float), (1 - z) * n + z * h, atol=1e-12)
    assert "[x_1; r_1 ⊙ h_0]" in d.step("1.h_tilde_pre").formula


def _xh(table: dict[str, Any], d_h: int) -> dict[str, Any]:
    """A per-gate table's W_* with their h and x columns swapped, and order = "xh"."""
    out = {**table, "order": "xh"}
    for k, v in table.items():
        if k.startswith("W_") and k not in ("W_att", "W_out", "W_a", "W_q", "W_k"):
            out[k] = [row[d_h:] + row[:d_h] for row in v]
    return out


def test_seq2seq_encoder_and_decoder_take_the_order() -> None:
    raw = tomllib.loads((Path(__file__).parents[2] / "problems" / "seq2seq-luong.toml").read_text())
    want = solve_raw(raw, exact=False)
    swapped = {**raw, "encoder": _xh(raw["encoder"], 2), "decoder": _xh(raw["decoder"], 2)}
    got = solve_raw(swapped, exact=False)
    for sid in want.step_ids:
        if sid.endswith((".hx", ".rhx")):  # the same two parts, x first
            v = np.asarray(want[sid], dtype=float)
            np.testing.assert_allclose(np.asarray(got[sid], dtype=float), np.r_[v[2:], v[:2]])
        elif not isinstance(want[sid], str):
            np.testing.assert_allclose(np.asarray(got[sid], dtype=float), np.asarray(want[sid], dtype=float))


def test_the_views_say_the_order() -> None:
    given = {"x": [[1, 0, 1]], "W": [[1, 0, 0.5, 0, -1], [0, 1, 0, 0.5, 1]], "b": [0, 0]}
    d = solve_raw({"kind": "rnn", "given": given, "cell": {"order": "xh"}}, exact=False)
    text = d.to_text()
    assert "[x_1; h_0]" in d.step("1.h_pre").formula and "on [x; h]" in text and "acts on [x; h]" in text


def test_a_bad_order_and_a_misfit_width_name_their_keys() -> None:
    with pytest.raises(ProblemError, match=r"cell\.order"):
        solve_raw({"kind": "rnn", "given": {"x": [[1]], "W": [[1, 1]]}, "cell": {"order": "hxh"}})
    with pytest.raises(ProblemError, match=r"given\.W.*\[x; h\]"):
        solve_raw({"kind": "rnn", "given": {"x": [[1, 2]], "h0": [0, 0], "W": [[1, 1]]}, "cell": {"order": "xh"}})


def test_xh_is_not_read_as_the_hx_slip() -> None:
    """Answers built in the order [x; h] for an xh problem are correct, not the slip '[x; h] for [h; x]'."""
    from attncalc.check import check
    from attncalc.parse import parse_problem

    given = {"x": [[1, 0], [0, 1]], "W": [[1, 0, 0.5, 0], [0, 1, 0, 0.5]], "b": [0.1, -0.1]}
    raw = {"kind": "rnn", "given": given, "cell": {"order": "xh"}}
    truth = solve_raw(raw, exact=False)
    answers = {i: np.round(np.asarray(truth[i], dtype=float), 3).tolist() for i in truth.step_ids}
    report = check(parse_problem(raw, "p.toml"), answers, "a.toml")
    assert report.all_correct, [(r.id, r.note) for r in report.results if r.verdict != "correct"]


def _slip_report(order: str, answer: list[float]) -> Any:
    from attncalc.check import check
    from attncalc.parse import parse_problem

    given = {"x": [[1, -0.5], [0.5, 1]], "W": [[1, 0, 0.5, 0], [0, 1, 0, 0.5]], "b": [0.1, -0.1]}
    raw = {"kind": "rnn", "given": given, "cell": {"order": order}}
    return check(parse_problem(raw, "p.toml"), {"1.h_pre": answer}, "a.toml").results[0]


def test_h_before_x_in_an_xh_problem_is_named() -> None:
    """Order xh, h_0 = 0: the truth W [x; h] + b = [1.1, −0.6]; stacking [h; x] instead (the weights'
    first columns then meet h_0 = 0) gives [0.5·1, 0.5·(−0.5)] + b = [0.6, −0.35], by hand."""
    r = _slip_report("xh", [0.6, -0.35])
    assert r.verdict == "wrong" and r.mistake == "xh_swapped", r.note
    assert "[h_0; x_1] was used for [x_1; h_0]" in r.note and "belong to x" in r.note


def test_a_typo_in_an_xh_problem_is_not_the_slip() -> None:
    r = _slip_report("xh", [0.85, -0.35])  # two decimals: 0.85 is not the slip's 0.60
    assert r.verdict == "wrong" and r.mistake is None, r.note


def test_each_order_looks_for_its_own_slip_only() -> None:
    """In the order hx the slip is [x; h] for [h; x] (hx_swapped): [x; h] gives [1.1, −0.6], by hand."""
    r = _slip_report("hx", [1.1, -0.6])
    assert r.mistake == "hx_swapped" and "[x_1; h_0] was used for [h_0; x_1]" in r.note
    assert _slip_report("xh", [1.1, -0.6]).verdict == "correct"


# d_x = 2, d_h = 3: W (3 × 5) over the concatenation in either order is defined, so the swap slip is too
_W = [[1, 0, 0.5, 0, 1], [0, 1, 0, 0.5, -1], [0.5, 0.5, 1, 0, 0]]
_X, _H0, _B = [1, -0.5], [0.5, -1, 2], [0.1, -0.1, 0]


def _unequal(order: str, answers: dict[str, Any]) -> Any:
    from attncalc.check import check
    from attncalc.parse import parse_problem

    raw = {"kind": "rnn", "given": {"x": [_X], "h0": _H0, "W": _W, "b": _B}, "cell": {"order": order}}
    return check(parse_problem(raw, "p.toml"), answers, "a.toml").results[0]


@pytest.mark.parametrize("order", ["hx", "xh"])
def test_the_swap_is_named_when_d_x_differs_from_d_h(order: str) -> None:
    """W applied to the concatenation in the other order (numpy, from the formula W [·; ·] + b)."""
    swapped = np.r_[_X, _H0] if order == "hx" else np.r_[_H0, _X]
    answer = (np.array(_W) @ swapped + _B).tolist()  # hx: [3.35, −3.1, 0.75]; xh: [1.1, −0.1, 1.75]
    r = _unequal(order, {"1.h_pre": answer})
    assert r.verdict == "wrong" and r.mistake == f"{order}_swapped", r.note
    # a typo in one entry of that same answer is not the slip
    typo = [*answer[:2], answer[2] + 0.3]
    r = _unequal(order, {"1.h_pre": typo})
    assert r.verdict == "wrong" and r.mistake is None, r.note
    # the truth is correct, not the slip
    truth = np.r_[_H0, _X] if order == "hx" else np.r_[_X, _H0]
    assert _unequal(order, {"1.h_pre": (np.array(_W) @ truth + _B).tolist()}).verdict == "correct"


def test_an_entry_of_a_concatenation_is_named_by_its_part() -> None:
    """Entry 5 of [h_0; x_1] (d_h = 3) is x_1's second entry: said so, not "([h_0; x_1])_5"."""
    r = _unequal("hx", {"1.hx": [0.5, -1, 2, 1, -0.4]})
    assert r.verdict == "wrong" and "entry 5 of [h_0; x_1] (x_1,2)" in r.note, r.note
    assert "])_" not in r.note
