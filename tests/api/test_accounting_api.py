"""Kind accounting through the Python API: ``tokens`` is a top-level key of the attention
kinds (the labels) but a key of accounting's ``[given]`` (a count); ``attncalc.solve(kind="accounting",
..., tokens=512)`` passes it to ``[given]``, as ``given={"tokens": 512}`` does."""

from __future__ import annotations

import pytest

import attncalc
from attncalc.errors import ProblemError

GPT2 = {"kind": "accounting", "vocab": 50257, "context": 1024, "d_model": 768, "layers": 12, "heads": 12, "d_ff": 3072}


def _forward(T: int, d: int = 768, L: int = 12, V: int = 50257) -> int:
    # per block: Q, K, V, O (4 · 2·T·d·d), scores and A·V (2 · 2·T·T·d), the FFN (2 · 2·T·d·4d); the LM head 2·T·d·V
    return L * (8 * T * d * d + 4 * T * T * d + 16 * T * d * d) + 2 * T * d * V


def test_tokens_as_a_keyword_is_the_given_count() -> None:
    assert _forward(1024) == 291_648_307_200  # the documented GPT-2 small forward pass
    assert _forward(512) == 136_160_477_184
    assert attncalc.solve(**GPT2, tokens=512)["flops.forward"] == _forward(512)
    assert attncalc.solve(**GPT2, given={"tokens": 512})["flops.forward"] == _forward(512)
    assert attncalc.solve(**GPT2)["flops.forward"] == _forward(1024)  # tokens default to the context


def test_tokens_stay_labels_for_the_attention_kinds() -> None:
    d = attncalc.solve(kind="attention", score="dot", query=[1, 1], keys=[[1, 0], [0, 2]], tokens=["a", "b"])
    assert d.problem.tokens == ("a", "b") or list(d.problem.tokens) == ["a", "b"]
    with pytest.raises(ProblemError, match="tokens: expected a non-empty list of labels"):
        attncalc.solve(kind="attention", score="dot", query=[1, 1], keys=[[1, 0], [0, 2]], tokens=512)
