"""The modern layer's options draw variants that carry them, solve, and
grade all correct against their own keys; options a kind does not take are refused by name."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc.errors import AttncalcError


def variants(**options: Any) -> list[Any]:
    return attncalc.generate(count=2, seed=3, **options)


def all_correct(v: Any) -> None:
    rep = attncalc.check(v.derivation.problem, v.key)
    assert all(r.verdict == "correct" for r in rep.results)


def test_a_window_in_multi_head_and_self_attention() -> None:
    for kind, extra in (("multi-head", {}), ("self-attention", {"score": "scaled-dot"})):
        for v in variants(kind=kind, tokens=4, window=2, **extra):
            assert v.problem["given"]["window"] == 2
            ids = v.derivation.step_ids
            masked = next(i for i in ids if i.endswith("masked_scores"))
            s = np.asarray(v.derivation.step(masked).value, dtype=float)
            band = np.array([[k <= i and i - k < 2 for k in range(4)] for i in range(4)])
            assert (np.isneginf(s) == ~band).all()
            all_correct(v)


def test_a_llama_style_layer() -> None:
    for v in variants(kind="transformer-layer", tokens=3, normalization="rms", activation="swiglu", window=2):
        assert v.problem["settings"]["normalization"] == "rms"
        assert v.problem["ffn"]["activation"] == "swiglu" and "W_3" in v.problem["ffn"]
        ids = v.derivation.step_ids
        assert "norm1.mean_square" in ids and "ffn.gate" in ids and "norm1.variance" not in ids
        all_correct(v)


def test_a_pre_norm_layer() -> None:
    """--norm pre: each norm before its sublayer (LLaMA), the output the last residual sum."""
    for v in variants(kind="transformer-layer", tokens=3, normalization="rms", activation="swiglu", norm="pre"):
        assert v.problem["settings"]["norm"] == "pre"
        ids = v.derivation.step_ids
        assert ids.index("norm1.output") < ids.index("residual1") < ids.index("norm2.output") < ids.index("residual2")
        assert ids.index("norm1.output") < min(ids.index(i) for i in ids if i.startswith("self."))
        np.testing.assert_array_equal(v.derivation["output"], v.derivation["residual2"])
        all_correct(v)
    post = variants(kind="transformer-layer", norm="post")
    assert all(v.problem["settings"]["norm"] == "post" for v in post)
    assert [v.problem["given"] for v in post] == [v.problem["given"] for v in variants(kind="transformer-layer")]


def test_a_silu_layer() -> None:
    for v in variants(kind="transformer-layer", activation="silu"):
        assert v.problem["ffn"]["activation"] == "silu"
        h = np.asarray(v.derivation.step("ffn.hidden_pre").value, dtype=float)
        np.testing.assert_allclose(v.derivation["ffn.hidden"], h / (1 + np.exp(-h)), atol=1e-12)
        all_correct(v)


def test_top_k_with_top_p() -> None:
    for v in variants(kind="decode", strategy="top-p", top_k=3, tokens=5):
        assert v.problem["given"]["k"] == 3
        assert "kept_top_k" in v.derivation.step_ids
        assert sum(v.derivation["kept"]) <= 3
        all_correct(v)


@pytest.mark.parametrize(
    ("options", "flag"),
    [
        ({"kind": "decode", "strategy": "top-k", "top_k": 2}, "--top-k"),
        ({"kind": "decode", "top_k": 5, "tokens": 5}, "--top-k"),
        ({"kind": "multi-head", "tokens": 3, "window": 3}, "--window"),
        ({"kind": "multi-head", "window": 2, "cross": True}, "--window"),
        ({"kind": "attention", "window": 2}, "--window"),
        ({"kind": "transformer-layer", "normalization": "batch"}, "--normalization"),
        ({"kind": "transformer-layer", "activation": "tanh"}, "--activation"),
        ({"kind": "multi-head", "activation": "silu"}, "--activation"),
        ({"kind": "softmax", "normalization": "rms"}, "--normalization"),
        ({"kind": "transformer-layer", "norm": "middle"}, "--norm"),
        ({"kind": "multi-head", "norm": "pre"}, "--norm"),
    ],
)
def test_options_a_kind_does_not_take_are_refused(options: dict[str, Any], flag: str) -> None:
    with pytest.raises(AttncalcError) as e:
        attncalc.generate(**options)
    assert flag in str(e.value)


def test_the_command_line_takes_the_options(cli: Any, tmp_path: Any) -> None:
    out = tmp_path / "hw"
    args = ["generate", "--kind", "transformer-layer", "--normalization", "rms", "--activation", "swiglu"]
    result = cli(*args, "--window", "2", "--tokens", "3", "--out", str(out))
    assert result.exit_code == 0, result.output
    text = (out / "variant-01.toml").read_text(encoding="utf-8")
    assert 'normalization = "rms"' in text and 'activation = "swiglu"' in text and "window = 2" in text
    result = cli(*args, "--norm", "pre", "--out", str(tmp_path / "pre"))
    assert result.exit_code == 0, result.output
    assert 'norm = "pre"' in (tmp_path / "pre" / "variant-01.toml").read_text(encoding="utf-8")
    result = cli("generate", "--kind", "decode", "--top-k", "2", "--out", str(tmp_path / "d"))
    assert result.exit_code == 0, result.output
