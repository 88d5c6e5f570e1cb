"""generate draws no dead unit: no column of X (of the memory, of attention's keys) that is
all zeros or the same for every token, no such column of V or of a Transformer layer's FFN
pre-activation or LayerNorm rows, no row of zeros in an output layer, no column of zeros in a
recurrent input; and a copy step ("nothing is computed here") is worth 0 points unless the
[grading] table says otherwise.

Each property is a one-line numpy formula on the drawn numbers (the FFN pre-activation recomputed
from the LayerNorm's output and W_1), not a call to the guards that enforce it."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc import kinds
from attncalc.check import check
from attncalc.errors import ProblemError
from attncalc.homework.generate import Options, generate
from attncalc.parse import parse_problem

SHOWN = 0.5e-3  # two values closer than this are the same number at 3 decimals

RUNS: dict[str, list[dict[str, Any]]] = {
    "attention": [{}, {"score": "additive", "head": True}, {"tokens": 2, "values": "mixed"}],
    "self-attention": [{}, {"mask": "causal", "dim": 3, "score": "scaled-dot"}, {"tokens": 2}],
    "multi-head": [
        {"dim": 4},
        {"dim": 4, "cross": True},
        {"dim": 6, "heads": 3, "tokens": 2, "positions": "alibi"},
        {"dim": 4, "kv_heads": 1, "positions": "rope", "values": "decimal"},
    ],
    "transformer-layer": [{"dim": 4}, {"dim": 4, "cross": True, "tokens": 2}],
    "rnn": [{"head": True}, {"head": True, "layout": "keras", "tokens": 1}],
    "lstm": [{"head": True}, {"head": True, "layout": "pytorch", "values": "decimal"}],
    "gru": [{"head": True, "layout": "keras"}],
    "seq2seq": [{}, {"cell": "lstm", "attention": "bahdanau"}],
    "positional-encoding": [{"tokens": 2, "dim": 2}],  # the X that P is added to
    "attention-backward": [{"dim": 4}, {"dim": 4, "mask": "causal", "kv_heads": 1}],
    "online-softmax": [{}, {"score": "scaled-dot", "dim": 3, "values": "mixed"}],  # V's and K's columns
}
# kinds whose homework has no unit a token runs through (logits, probabilities, word vectors, n-grams, BPE counts,
# accounting's configuration)
NO_UNITS = {
    "softmax",
    "sequence",
    "similarity",
    "bleu",
    "decode",
    "bpe",
    "lr-schedule",
    "accounting",
}  # lr-schedule: constants


def dead_unit_runs() -> list[tuple[str, dict[str, Any]]]:
    """(kind, generate options) to check: RUNS, and the default options for every other kind `generate`
    covers that is not in NO_UNITS (read from the registry when called: a new kind is checked with no
    line of its own here; list it in RUNS for options that reach more of its units)."""
    drawn = kinds.with_drawer()
    return [(k, o) for k in drawn if k not in NO_UNITS for o in RUNS.get(k, [{}])]


def test_the_lists_name_only_kinds_generate_covers() -> None:
    drawn = set(kinds.with_drawer())
    for kind in set(RUNS) | NO_UNITS:
        assert kind in drawn, f"{kind!r} is in RUNS or NO_UNITS but `generate` does not cover it"
    assert not set(RUNS) & NO_UNITS, set(RUNS) & NO_UNITS


def _a(x: Any) -> np.ndarray:
    return np.atleast_2d(np.asarray(x, dtype=float))


def assert_no_dead_unit(raw: dict[str, Any], d: Any) -> None:
    tables = {k: v for k, v in raw.items() if isinstance(v, dict)}
    for t in tables.values():
        for key in ("X", "memory", "keys", "K", "V"):  # K, V: online-softmax's keys and values, one per row
            if key in t:
                M = _a(t[key])
                assert (np.abs(M).max(axis=0) > 0).all(), (key, M)  # no column of zeros
                assert M.shape[0] == 1 or (np.ptp(M, axis=0) > 0).all(), (key, M)  # no constant column
        for key in ("x", "inputs", "Q"):
            if key in t:
                assert (np.abs(_a(t[key])).max(axis=0) > 0).all(), (key, t[key])
        if "W_out" in t:
            assert (np.abs(_a(t["W_out"])).max(axis=1) > 0).all(), t["W_out"]  # no row of zeros
    n_tokens = len(raw.get("tokens", [])) or 1
    for i in d.step_ids:
        if i.split(".")[-1] == "V" or (i.endswith(".normalized") and "norm" in i):
            M = _a(d[i])
            assert (np.abs(M).max(axis=0) >= SHOWN).all(), (i, M)
            assert n_tokens == 1 or M.shape[0] == 1 or (np.ptp(M, axis=0) >= SHOWN).all(), (i, M)
    if "ffn" in raw:
        W1 = _a(raw["ffn"]["W_1"])
        assert (np.ptp(W1, axis=0) > 0).all(), W1  # a constant W_1 column is 0 after LayerNorm
        ids = list(d.step_ids)
        before = ids[: ids.index("ffn.hidden_pre")]
        norm = [i for i in before if i.startswith("norm") and i.endswith(".output")][-1]  # the FFN's input
        H = _a(d[norm]) @ W1  # the FFN pre-activation, recomputed (no b_1 drawn)
        np.testing.assert_allclose(H, _a(d["ffn.hidden_pre"]), atol=1e-9)
        assert (np.abs(H).max(axis=0) >= SHOWN).all() and (np.ptp(H, axis=0) >= SHOWN).all(), H


@pytest.mark.parametrize(("kind", "opts"), dead_unit_runs())
def test_many_seeds_draw_no_dead_unit(kind: str, opts: dict[str, Any]) -> None:
    for seed in (0, 1, 2):
        res = generate(Options(kind=kind, count=8, seed=seed, **opts))
        for raw, d in zip(res.problems, res.derivations, strict=True):
            assert_no_dead_unit(raw, d)


@pytest.mark.parametrize(
    ("kind", "opts", "seed"),
    [
        ("multi-head", {"dim": 4}, 1),  # X had a column of equal entries; head 1's V a constant column
        ("multi-head", {"dim": 4}, 5),
        ("transformer-layer", {"dim": 4}, 2),  # a column of X constant, an FFN unit 0 for every token
        ("self-attention", {}, 8),  # a constant column of X
        ("lstm", {"head": True}, 10),  # W_out had a row [0, 0]: that label's logit 0 at every step
        ("gru", {"head": True}, 4),
        ("seq2seq", {}, 0),
        ("attention", {"head": True}, 13),
    ],
)
def test_the_reported_draws_have_no_dead_unit(kind: str, opts: dict[str, Any], seed: int) -> None:
    """Draws the old guards (weights only) let through, with a dead input, V, FFN unit or output row."""
    res = generate(Options(kind=kind, count=1, seed=seed, **opts))
    assert_no_dead_unit(res.problems[0], res.derivations[0])


# ------------------------------------------------------------------------------ copy steps

MH = Path(__file__).parents[2] / "problems" / "mh-self-attention.toml"
# the copy steps of a two-head multi-head problem, by hand: each head's block of Q, K and V, the concat
MH_COPIES = {f"head.{j}.{m}" for j in (1, 2) for m in "QKV"} | {"concat"}


def read_toml(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _out_of(raw: dict[str, Any]) -> float:
    return float(check(parse_problem(raw, "p.toml"), {}, "a.toml").out_of)


def test_copy_steps_are_worth_nothing_by_default() -> None:
    raw = read_toml(MH)
    steps = attncalc.solve(parse_problem(raw, "p.toml")).step_ids
    assert MH_COPIES <= set(steps)
    assert _out_of(raw) == len(steps) - len(MH_COPIES)  # 23 steps, 7 of them copies: out of 16
    assert _out_of({**raw, "grading": {"copies": 1}}) == len(steps)
    assert _out_of({**raw, "grading": {"copies": 0.5, "default": 2}}) == 2 * (len(steps) - 7) + 0.5 * 7
    named = {"grading": {"points": {"head.1.Q": 3, "head.*.V": 4}}}  # named copies keep their points
    assert _out_of({**raw, **named}) == len(steps) - len(MH_COPIES) + 3 + 4


def test_ranking_steps_are_not_copies() -> None:
    """decode's sorted probabilities are a judgement (the order), not a copy: worth a point."""
    raw = read_toml(Path(__file__).parents[2] / "problems" / "decode-top-p.toml")
    steps = attncalc.solve(parse_problem(raw, "p.toml")).step_ids
    assert "sorted" in steps and _out_of(raw) == len(steps)


def test_negative_copies_is_bad_input() -> None:
    raw = {**read_toml(MH), "grading": {"copies": -1}}
    with pytest.raises(ProblemError, match=r"grading\.copies.*must not be negative"):
        parse_problem(raw, "p.toml")
