"""Kind decode: the examples agree with a top-k/top-p filter written with torch.sort and torch.cumsum
(as the Hugging Face warpers do it), temperature with torch.softmax, the draw with torch.searchsorted,
beam search with torch.topk and the length penalty of Wu et al. 2016; exact and numeric agree; `check`
names the slips; bad input is one line; `generate` makes variants `check` accepts."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sympy as sp

import attncalc
from attncalc.errors import ProblemError

from ..helpers import PROBLEMS, solve_raw

TORCH = "PyTorch is the oracle here (pip install torch==2.13.0)"


def raw(name: str) -> dict[str, Any]:
    return tomllib.loads((PROBLEMS / f"{name}.toml").read_text(encoding="utf-8"))


def val(d: Any, sid: str) -> np.ndarray:
    return np.asarray(d.step(sid).value, dtype=float)


def torch_filter(logits: list[float], T: float = 1.0, k: int | None = None, p: float | None = None) -> dict[str, Any]:
    """softmax(z / T), then the top-k or top-p filter on the sorted distribution, renormalised."""
    torch = pytest.importorskip("torch", reason=TORCH)
    z = torch.tensor(logits, dtype=torch.float64) / T
    probs = torch.softmax(z, dim=-1)
    sorted_p, idx = torch.sort(probs, descending=True, stable=True)
    cum = torch.cumsum(sorted_p, dim=-1)
    keep_sorted = torch.zeros_like(sorted_p, dtype=torch.bool)
    if k is not None:
        keep_sorted[:k] = True
    else:
        assert p is not None
        keep_sorted = (cum - sorted_p) < p  # the running sum before a token is below p: Holtzman's smallest set
    keep = torch.zeros_like(keep_sorted).scatter(0, idx, keep_sorted)
    filtered = torch.where(keep, probs, torch.zeros_like(probs))
    renorm = filtered / filtered.sum()
    return {
        "probabilities": probs.numpy(),
        "sorted": sorted_p.numpy(),
        "cumulative": cum.numpy(),
        "kept": keep.double().numpy(),
        "renormalized": renorm.numpy(),
        "draw_cumulative": torch.cumsum(renorm, dim=-1).numpy(),
    }


def torch_draw(dist: np.ndarray, u: float) -> int:
    torch = pytest.importorskip("torch", reason=TORCH)
    return int(
        torch.searchsorted(torch.cumsum(torch.tensor(dist), 0), torch.tensor([u], dtype=torch.float64), right=True)
    )


@pytest.mark.parametrize("name", ["decode-top-k", "decode-top-p"])
def test_examples_agree_with_torch_exact_and_numeric(name: str) -> None:
    r = raw(name)
    g = r["given"]
    want = torch_filter(g["logits"], k=g.get("k"), p=g.get("p"))
    for exact in (True, False):
        d = attncalc.solve(PROBLEMS / f"{name}.toml", exact=exact)
        for sid, value in want.items():
            if sid in d.step_ids:
                np.testing.assert_allclose(val(d, sid), value, rtol=0, atol=1e-9, err_msg=f"{name} {sid} {exact}")
        assert d["choice"] == g["vocab"][torch_draw(want["renormalized"], g["u"])]
    assert "cumulative" in d.step_ids if name == "decode-top-p" else "cumulative" not in d.step_ids


def test_top_k_and_top_p_examples_keep_different_sets_and_choose_differently() -> None:
    k = attncalc.solve(PROBLEMS / "decode-top-k.toml")
    p = attncalc.solve(PROBLEMS / "decode-top-p.toml")
    assert list(val(k, "kept")) == [1, 1, 0, 0, 0] and list(val(p, "kept")) == [1, 1, 1, 0, 0]
    assert (k["choice"], p["choice"]) == ("cat", "dog")
    # exact: the renormalised top-k probability of cat is e^3 / (e^3 + e^2) = e / (1 + e)
    assert sp.simplify(k.step("renormalized").exact[0] - sp.E / (1 + sp.E)) == 0
    assert k.headline == "Sampled: cat"


@pytest.mark.parametrize("T", [0.5, 2])
def test_temperature_divides_the_logits(T: float) -> None:
    logits = [1, 0.5, -1, 2]
    d = solve_raw(
        {
            "kind": "decode",
            "strategy": "top-p",
            "given": {"logits": logits, "p": 0.8, "u": 0.3},
            "settings": {"temperature": T},
        }
    )
    want = torch_filter(logits, T=T, p=0.8)
    np.testing.assert_allclose(val(d, "scaled_logits"), np.array(logits) / T, atol=1e-12)
    for sid in ("probabilities", "kept", "renormalized"):
        np.testing.assert_allclose(val(d, sid), want[sid], atol=1e-12, err_msg=sid)
    assert d["choice"] == f"w{torch_draw(want['renormalized'], 0.3) + 1}"


def test_greedy_and_plain_sampling_from_probabilities() -> None:
    g = {"probabilities": ["1/2", "1/4", "1/8", "1/8"], "vocab": ["a", "b", "c", "d"]}
    d = solve_raw({"kind": "decode", "strategy": "greedy", "given": g})
    assert d["choice"] == "a" and d.headline.startswith("Prediction: a")
    d = solve_raw({"kind": "decode", "strategy": "sample", "given": {**g, "u": "3/4"}})
    # running sums 1/2, 3/4, 7/8, 1: u = 3/4 is not above 3/4, so the draw lands on c
    assert list(d.step("draw_cumulative").exact) == [sp.Rational(1, 2), sp.Rational(3, 4), sp.Rational(7, 8), 1]
    assert d["choice"] == "c"


def test_top_p_at_exactly_p_keeps_the_token_that_reaches_it() -> None:
    """p = 3/4 is reached exactly by a and b: the smallest set holding at least p is {a, b}."""
    g = {"probabilities": ["1/2", "1/4", "1/8", "1/8"], "vocab": ["a", "b", "c", "d"], "p": "3/4"}
    d = solve_raw({"kind": "decode", "strategy": "top-p", "given": g})
    assert list(val(d, "kept")) == [1, 1, 0, 0]


def test_top_k_ties_keep_the_earlier_vocabulary_entry() -> None:
    d = solve_raw({"kind": "decode", "strategy": "top-k", "given": {"logits": [0, 1, 1, 0], "k": 1}})
    assert list(val(d, "kept")) == [0, 1, 0, 0]


def wu_lp(L: int, alpha: float) -> float:
    return ((5 + L) / 6) ** alpha


def test_beam_example_agrees_with_torch_topk() -> None:
    torch = pytest.importorskip("torch", reason=TORCH)
    g = raw("decode-beam")["given"]
    logp = torch.tensor(g["beams"], dtype=torch.float64)
    scores = torch.tensor(g["beam_scores"], dtype=torch.float64)
    cand = scores[:, None] + logp
    norm = cand / wu_lp(g["length"], g["length_penalty"])
    top = torch.topk(norm.flatten(), g["beam_width"])
    V = logp.shape[1]
    for exact in (True, False):
        d = attncalc.solve(PROBLEMS / "decode-beam.toml", exact=exact)
        np.testing.assert_allclose(val(d, "candidates"), cand.numpy(), atol=1e-12)
        np.testing.assert_allclose(val(d, "normalized"), norm.numpy(), atol=1e-12)
        np.testing.assert_allclose(val(d, "kept_beams"), cand.flatten()[top.indices].numpy(), atol=1e-12)
        labels = [f"beam {int(i) // V + 1}: {g['vocab'][int(i) % V]}" for i in top.indices]
        assert d["kept_labels"] == ", ".join(labels)
    assert d["kept_labels"] == "beam 1: cat, beam 1: dog"


def test_length_penalty_changes_the_ranking() -> None:
    """Without a penalty the shorter score wins; α = 1 with L = 7 divides by 2 and changes nothing in
    the order here, but the normalized values are the scores halved."""
    g = {"beams": [[-0.1, -3.0]], "beam_scores": [-2.0], "beam_width": 1, "vocab": ["x", "y"]}
    d = solve_raw({"kind": "decode", "strategy": "beam", "given": g})
    assert "normalized" not in d.step_ids and d["kept_labels"] == "beam 1: x"
    d = solve_raw({"kind": "decode", "strategy": "beam", "given": {**g, "length_penalty": 1, "length": 7}})
    np.testing.assert_allclose(val(d, "normalized"), [[-2.1 / 2, -5.0 / 2]], atol=1e-12)
    assert d.step("normalized").exact[0, 0] == sp.Rational(-21, 20)


@pytest.mark.parametrize(
    ("strategy", "given", "key", "words"),
    [
        ("top-k", {"logits": [1, 2]}, "given.k", "missing"),
        ("top-k", {"logits": [1, 2], "k": 3}, "given.k", "vocabulary has 2"),
        ("top-p", {"logits": [1, 2], "p": 1.5}, "given.p", "at most 1"),
        ("top-p", {"logits": [1, 2], "p": 0.5, "u": 1}, "given.u", "below 1"),
        ("greedy", {"logits": [1, 2], "k": 1}, "given.k", "does not apply"),
        ("greedy", {"probabilities": [0.5, 0.6]}, "given.probabilities", "add up to 1"),
        ("greedy", {"logits": [1, 2], "probabilities": [0.5, 0.5]}, "given.logits", "either"),
        ("greedy", {"logits": [1, 2], "vocab": ["a"]}, "given.vocab", "2 vocabulary entries"),
        ("beam", {"beams": [[0.1]], "beam_scores": [0], "beam_width": 1}, "given.beams", "at most 0"),
        ("beam", {"beams": [[-0.1]], "beam_scores": [0, 1], "beam_width": 1}, "given.beam_scores", "1 rows"),
        ("beam", {"beams": [[-0.1]], "beam_scores": [0], "beam_width": 2}, "given.beam_width", "only 1"),
        ("beam", {"beams": [[-0.1]], "beam_scores": [0], "beam_width": 1, "length": 2}, "given.length_penalty", "both"),
    ],
)
def test_bad_input_names_the_key(strategy: str, given: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ProblemError) as e:
        solve_raw({"kind": "decode", "strategy": strategy, "given": given})
    assert e.value.key == key and words in str(e.value)


def test_temperature_with_probabilities_is_refused() -> None:
    with pytest.raises(ProblemError) as e:
        solve_raw({"kind": "decode", "given": {"probabilities": [0.5, 0.5]}, "settings": {"temperature": 2}})
    assert e.value.key == "settings.temperature"


# ------------------------------------------------------------------ check and generate


def _check(problem: Any, answers: dict[str, Any]) -> dict[str, Any]:
    return {r["id"]: r for r in attncalc.check(problem, answers).to_json()["results"]}


def test_slip_top_p_cut_one_token_early_and_late() -> None:
    path = PROBLEMS / "decode-top-p.toml"
    sorted_ = [0.636, 0.234, 0.086, 0.032, 0.012]  # right, to 3 decimals: the precision the flags are judged at
    assert _check(path, {"sorted": sorted_, "kept": [1, 1, 0, 0, 0]})["kept"]["mistake"] == "top_p_early"
    assert _check(path, {"sorted": sorted_, "kept": [1, 1, 1, 1, 0]})["kept"]["mistake"] == "top_p_late"
    p = torch_filter(raw("decode-top-p")["given"]["logits"], p=0.9)["probabilities"]
    late = np.where([1, 1, 1, 1, 0], p, 0) / p[:4].sum()
    got = _check(path, {"renormalized": np.round(late, 3).tolist()})
    assert got["renormalized"]["mistake"] == "top_p_late" and "one token late" in got["renormalized"]["note"]


def test_flags_written_with_a_decimal_are_judged_as_flags() -> None:
    """kept = [1.0, 1.0, 0.0, 0.0, 0.0] is the early cut, as [1, 1, 0, 0, 0] is: "1.0" says nothing of
    the precision worked to (it matched the 1-decimal hand chain, and the slip was graded correct).
    By PyTorch: p = softmax([3, 2, 1, 0, -1]); 0.636 + 0.234 = 0.8705 < 0.9, so mat is kept too,
    renormalised over the three; the draw u = 0.7 takes dog (0.665 < 0.7 ≤ 0.910), while the
    answerer's own two kept tokens (0.731, 0.269) give cat."""
    path = PROBLEMS / "decode-top-p.toml"
    p = torch_filter(raw("decode-top-p")["given"]["logits"], p=0.9)["probabilities"]
    assert p[0] + p[1] < 0.9 <= p[0] + p[1] + p[2]
    theirs = np.array([p[0], p[1], 0, 0, 0]) / (p[0] + p[1])
    assert theirs[0] >= 0.7 > p[0] / p[:3].sum()
    answers = {
        "probabilities": np.round(p, 3).tolist(),
        "kept": ["1.0", "1.0", "0.0", "0.0", "0.0"],
        "renormalized": [f"{x:.3f}" for x in theirs],
        "choice": "cat",
    }
    got = _check(path, answers)
    assert got["kept"]["verdict"] == "wrong" and got["kept"]["mistake"] == "top_p_early"
    assert got["renormalized"]["verdict"] == "carried" and got["choice"]["verdict"] == "carried"
    right = _check(path, {"probabilities": answers["probabilities"], "kept": [1.0, 1.0, 1.0, 0.0, 0.0]})
    assert right["kept"]["verdict"] == "correct"


def test_slip_beam_scores_multiplied() -> None:
    g = raw("decode-beam")["given"]
    wrong = np.array(g["beam_scores"])[:, None] * np.array(g["beams"])
    got = _check(PROBLEMS / "decode-beam.toml", {"candidates": np.round(wrong, 3).tolist()})
    assert got["candidates"]["mistake"] == "beam_multiplied"


def test_check_grades_the_choice_and_the_kept_labels() -> None:
    got = _check(PROBLEMS / "decode-beam.toml", {"kept_labels": ["beam 1: cat", "beam 1: dog"]})
    assert got["kept_labels"]["verdict"] == "correct"
    got = _check(PROBLEMS / "decode-top-p.toml", {"choice": "cat"})
    assert got["choice"]["verdict"] == "wrong"


@pytest.mark.parametrize("strategy", ["greedy", "sample", "top-k", "top-p", "beam"])
def test_generated_decode_keys_are_accepted_by_check(cli: Any, tmp_path: Path, strategy: str) -> None:
    out = tmp_path / "hw"
    result = cli("generate", "--kind", "decode", "--strategy", strategy, "--count", "2", "--out", str(out))
    assert result.exit_code == 0, result.output
    for key in sorted((out / "answers").glob("*.toml")):
        report = json.loads(cli("check", "--problems", str(out), str(key), "--format", "json").stdout)
        assert report["summary"]["wrong"] == 0 and report["summary"]["carried"] == 0, key
    assert json.loads(json.dumps(tomllib.loads((out / "variant-01.toml").read_text())))["strategy"] == strategy


def test_generate_refuses_an_unknown_strategy(cli: Any, tmp_path: Path) -> None:
    result = cli("generate", "--kind", "decode", "--strategy", "nucleus", "--out", str(tmp_path / "x"))
    assert result.exit_code == 2 and "--strategy" in result.output


def test_text_view_fits_80_columns() -> None:
    for name in ("decode-top-k", "decode-top-p", "decode-beam"):
        text = attncalc.solve(PROBLEMS / f"{name}.toml").to_text(width=80)
        assert max(len(line) for line in text.splitlines()) <= 80, name
    assert "kept: beam 1: cat, beam 1: dog" in text
    text = attncalc.solve(PROBLEMS / "decode-top-p.toml").to_text(width=80)
    assert "u = 0.7: the first running sum above u picks dog" in text


def test_a_cut_exactly_at_p_is_the_same_in_floats() -> None:
    """0.7 + 0.2 = 0.9 reaches p = 0.9 by hand, so the third token is dropped; in floats the sum is
    0.8999999999999999, which kept it (and check then expected [1, 1, 1] against solve's [1, 1, 0])."""
    from attncalc import check, solve

    problem = {"kind": "decode", "strategy": "top-p", "given": {"probabilities": [0.7, 0.2, 0.1], "p": 0.9}}
    for exact in (True, False):
        assert solve(problem, exact=exact)["kept"] == [1.0, 1.0, 0.0]
    assert check(problem, {"kept": [1, 1, 0]}).all_correct


def test_a_beam_tie_goes_to_the_earlier_beam_in_floats_too() -> None:
    """−0.4 + (−0.5) = −0.7 + (−0.2) = −0.9: a tie, kept by the earlier beam, as exactly."""
    from attncalc import check, solve

    problem = {
        "kind": "decode",
        "strategy": "beam",
        "given": {"vocab": ["x", "y"], "beams": [[-0.5, -3], [-0.2, -3]], "beam_scores": [-0.4, -0.7], "beam_width": 1},
    }
    assert solve(problem, exact=False)["kept_labels"] == "beam 1: x"
    assert check(problem, {"kept_labels": "beam 1: x"}).all_correct


def test_a_wrong_draw_is_not_told_about_the_largest_probability() -> None:
    """The top-p example draws dog with u; a student who wrote cat (the most probable) is told what the
    draw gives, not that dog has the largest probability (it does not)."""
    from attncalc import check

    rep = check(PROBLEMS / "decode-top-p.toml", {"choice": "cat"})
    note = rep.results[0].note
    assert "largest probability" not in note and "draw" in note and "dog" in note


def test_the_python_api_takes_the_new_top_level_keys() -> None:
    from attncalc import solve

    assert solve(kind="decode", strategy="top-k", logits=[3, 2, 1], k=2)["kept"] == [1.0, 1.0, 0.0]
    eye = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    d = solve(
        kind="transformer-layer",
        X=[[1, 0, 1, 0], [0, 2, 1, 1]],
        heads=2,
        self_attention={"W_Q": eye, "W_K": eye, "W_V": eye, "W_O": eye},
        ffn={"W_1": eye, "W_2": eye},
        exact=False,
    )
    assert len(d["output"]) == 2
