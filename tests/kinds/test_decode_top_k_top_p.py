"""Decode with top-k and top-p together, in Hugging Face's order (temperature, top-k,
top-p). The oracle is written here with torch ops from transformers' TopKLogitsWarper and
TopPLogitsWarper (the logits outside torch.topk's k largest set to −∞; then the softmax of what is left,
sorted ascending, its cumulative sum, and the tokens whose cumulative sum is at most 1 − p removed);
where transformers is installed, its own warpers are run on the same logits too."""

from __future__ import annotations

import tomllib
from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc.errors import ProblemError

from ..helpers import PROBLEMS, solve_raw

torch = pytest.importorskip("torch", reason="PyTorch is the oracle here (pip install torch==2.13.0)")


def hf_order(logits: list[float], k: int, p: float, T: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(kept flags, final distribution): temperature, then top-k, then top-p, as transformers does."""
    z = torch.tensor([logits], dtype=torch.float64) / T
    kth = torch.topk(z, k)[0][..., -1, None]
    z = z.masked_fill(z < kth, float("-inf"))  # TopKLogitsWarper
    sorted_z, idx = torch.sort(z, descending=False)  # TopPLogitsWarper
    cum = sorted_z.softmax(-1).cumsum(-1)
    remove_sorted = cum <= (1 - p)
    remove_sorted[..., -1:] = False  # min_tokens_to_keep = 1
    remove = remove_sorted.scatter(1, idx, remove_sorted)
    z = z.masked_fill(remove, float("-inf"))
    final = z.softmax(-1)[0].numpy()
    return (final > 0).astype(float), final


def transformers_order(logits: list[float], k: int, p: float, T: float = 1.0) -> np.ndarray:
    tf = pytest.importorskip("transformers", reason="transformers' own warpers (optional)")
    lp = tf.generation.logits_process
    procs = lp.LogitsProcessorList([lp.TopKLogitsWarper(top_k=k), lp.TopPLogitsWarper(top_p=p)])
    if T != 1.0:
        procs.insert(0, lp.TemperatureLogitsWarper(T))
    z = procs(torch.zeros(1, 1, dtype=torch.long), torch.tensor([logits], dtype=torch.float64))
    return np.asarray(z.softmax(-1)[0].numpy(), dtype=float)


def problem(logits: list[float], k: int, p: float, T: float = 1.0) -> dict[str, Any]:
    r: dict[str, Any] = {"kind": "decode", "strategy": "top-p", "given": {"logits": logits, "k": k, "p": p}}
    if T != 1.0:
        r["settings"] = {"temperature": T}
    return r


def _cases() -> list[tuple[list[float], int, float, float]]:
    rng = np.random.default_rng(30)
    out = []
    for _ in range(24):
        V = int(rng.integers(3, 8))
        logits = [round(float(x), 2) for x in rng.normal(0, 1.5, V)]
        out.append((logits, int(rng.integers(1, V + 1)), float(rng.choice([0.3, 0.5, 0.75, 0.9, 0.95])), 1.0))
    out.append(([3, 2, 1, 0, -1], 3, 0.9, 1.0))  # the example
    out.append(([3, 2, 1, 0, -1], 3, 0.9, 2.0))  # a temperature flattens it: top-p keeps all three of the top k
    out.append(([1.5, -0.5, 2.5, 0.25, 1.0], 4, 0.8, 0.7))
    return out


def _far_from_ties(logits: list[float], k: int, p: float, T: float) -> bool:
    """No running sum of the top k within 1e-6 of p: the two rules (prior < p, and HF's cumsum ≤ 1 − p)
    then agree whatever the float rounding."""
    z = np.asarray(logits, dtype=float) / T
    top = np.sort(z)[::-1][:k]
    q = np.exp(top - top.max())
    q /= q.sum()
    return bool(np.all(np.abs(np.cumsum(q) - p) > 1e-6))


@pytest.mark.parametrize(("logits", "k", "p", "T"), _cases())
def test_top_k_then_top_p_agrees_with_hugging_faces_order(logits: list[float], k: int, p: float, T: float) -> None:
    assert _far_from_ties(logits, k, p, T)
    flags, want = hf_order(logits, k, p, T)
    for exact in (False, True):
        d = solve_raw(problem(logits, k, p, T), exact=exact)
        np.testing.assert_array_equal(np.asarray(d["kept"], dtype=float), flags)
        np.testing.assert_allclose(np.asarray(d["renormalized"], dtype=float), want, rtol=0, atol=1e-9)
        top_k = np.zeros(len(logits))
        top_k[np.argsort(-np.asarray(logits), kind="stable")[:k]] = 1
        np.testing.assert_array_equal(np.asarray(d["kept_top_k"], dtype=float), top_k)


@pytest.mark.parametrize(("logits", "k", "p", "T"), _cases()[-3:])
def test_transformers_own_warpers_agree(logits: list[float], k: int, p: float, T: float) -> None:
    want = transformers_order(logits, k, p, T)
    np.testing.assert_allclose(hf_order(logits, k, p, T)[1], want, rtol=0, atol=1e-12)
    d = solve_raw(problem(logits, k, p, T), exact=False)
    np.testing.assert_allclose(np.asarray(d["renormalized"], dtype=float), want, rtol=0, atol=1e-9)


def test_the_example_keeps_two_where_top_p_alone_keeps_three() -> None:
    raw = tomllib.loads((PROBLEMS / "decode-top-k-top-p.toml").read_text(encoding="utf-8"))
    d = attncalc.solve(PROBLEMS / "decode-top-k-top-p.toml")
    g = raw["given"]
    flags, want = hf_order(g["logits"], g["k"], g["p"])
    assert flags.tolist() == [1, 1, 0, 0, 0] and np.asarray(d["kept"], dtype=float).tolist() == flags.tolist()
    alone = attncalc.solve(PROBLEMS / "decode-top-p.toml")
    assert np.asarray(alone["kept"], dtype=float).tolist() == [1, 1, 1, 0, 0]
    # by hand: e^3, e^2, e^1 renormalised are e²/(1 + e + e²), e/(1 + e + e²), 1/(1 + e + e²)
    e = np.e
    np.testing.assert_allclose(
        np.asarray(d["top_k_renormalized"], dtype=float),
        [e**2 / (1 + e + e**2), e / (1 + e + e**2), 1 / (1 + e + e**2), 0, 0],
    )
    np.testing.assert_allclose(np.asarray(d["renormalized"], dtype=float), want, atol=1e-12)
    assert d["choice"] == "cat"  # u = 0.7 < e/(1 + e) = 0.731
    ids = d.step_ids
    assert ids.index("sorted") < ids.index("kept_top_k") < ids.index("top_k_renormalized") < ids.index("cumulative")
    assert ids.index("cumulative") < ids.index("kept")
    text = d.to_text(width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "κ_3 (mat) = [rank 3 ≤ 3] = 1" in text and "P_(j) = P_(j−1) + q_(j)" in text


def test_probabilities_given_and_a_tie_with_p_decided_exactly() -> None:
    """Probabilities given: of the top 3 (0.35, 0.25, 0.2) renormalised (0.4375, 0.3125, 0.25) the two most
    probable hold exactly 0.75 = p, which is not below p: the third is dropped (decided on exact values)."""
    r = {
        "kind": "decode",
        "strategy": "top-p",
        "given": {"probabilities": [0.1, 0.35, 0.25, 0.2, 0.1], "k": 3, "p": 0.75},
    }
    for exact in (False, True):
        d = solve_raw(r, exact=exact)
        assert np.asarray(d["kept"], dtype=float).tolist() == [0, 1, 1, 0, 0]
        np.testing.assert_allclose(np.asarray(d["top_k_renormalized"], dtype=float), [0, 0.4375, 0.3125, 0.25, 0])
    r["given"]["p"] = 0.7
    d = solve_raw(r, exact=False)
    assert np.asarray(d["kept"], dtype=float).tolist() == [0, 1, 1, 0, 0]
    r["given"]["p"] = 0.8
    d = solve_raw(r, exact=False)
    assert np.asarray(d["kept"], dtype=float).tolist() == [0, 1, 1, 1, 0]


def test_k_beyond_the_vocabulary_is_refused() -> None:
    with pytest.raises(ProblemError, match=r"given\.k"):
        solve_raw(problem([1, 2, 3], 4, 0.9))


@pytest.mark.parametrize(
    ("p", "kept"), [("7/9", [0, 0, 1, 1]), ("0.7777777777777777", [0, 0, 1, 1]), ("0.7777777777777779", [0, 1, 1, 1])]
)
def test_a_running_sum_of_the_renormalised_top_k_near_p_is_decided_on_exact_values(p: str, kept: list[int]) -> None:
    """The top 3 of [0.1, 0.2, 0.3, 0.4] renormalised: 4/9, 3/9, 2/9; the running sum before w2 is exactly 7/9
    (as floats 0.7777777777777778 either way): below p only when p is above 7/9."""
    r = {"kind": "decode", "strategy": "top-p", "given": {"probabilities": [0.1, 0.2, 0.3, 0.4], "k": 3, "p": p}}
    for exact in (False, True):
        d = solve_raw(r, exact=exact)
        assert np.asarray(d["kept"], dtype=float).tolist() == kept
    note = d.step("kept").note
    assert ("equals p = 0.777778 exactly" in note) == (p == "7/9")
