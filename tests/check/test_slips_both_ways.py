"""A slip is named only when the answer fits it. Each named slip of every kind is
tested both ways: an answer built from the slip is named, and one with a typo, or the true value
with a typo, is not (the arithmetic note is given instead).

The multi-head mask case the issue reports is built from numpy formulas written here from the paper
(Vaswani et al. 2017: softmax(Q Kᵀ / √d_k) with masked scores −∞; the slip zeroes the masked weights
of the unmasked softmax). The audit over every slip builds its answers by switching the slip on in
the mechanism (the grader's recognition is what is tested here; each slip's arithmetic has its own
oracle test in test_check.py, test_recurrent_slips.py, test_similarity.py, test_bleu.py, test_layer.py,
test_decode.py and test_multihead_examples.py)."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.check.runs import as_step
from attncalc.derivation.arith import Chain, round_half_up
from attncalc.kinds.mistakes import MISTAKES
from attncalc.mechanisms import MECHANISMS, solve
from attncalc.parse import Problem, load_problem, parse_problem

from ..helpers import PROBLEMS
from .test_recurrent_slips import GRU, RNN


def r3(x: Any, k: int = 3) -> Any:
    return np.vectorize(lambda v: round_half_up(float(v), k), otypes=[float])(np.asarray(x, dtype=float)).tolist()


def written(x: Any) -> Any:
    """Numbers as a student writes them to 3 decimals (strings keep the precision: "0.000", not 0.0);
    whole numbers (a 0/1 flag) as whole numbers."""
    a = np.asarray(x, dtype=float)
    if a.ndim:
        return [written(v) for v in a]
    v = float(a)
    if math.isinf(v):  # a masked score (the window's slips change the masked scores first)
        return "-inf" if v < 0 else "inf"
    return str(int(v)) if v == int(v) else f"{round_half_up(v, 3):.3f}"


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# ------------------------------------------------------------------ the case: the mask in multi-head


def _masked_mh() -> tuple[dict[str, Any], list[np.ndarray], list[np.ndarray]]:
    """mh-self-attention.toml with a causal mask: each head's true weights and its weights with the
    mask applied after the softmax (masked weights set to 0, rows not renormalised)."""
    raw = tomllib.loads(Path(PROBLEMS, "mh-self-attention.toml").read_text())
    raw["given"]["mask"] = "causal"
    g = raw["given"]
    X, WQ, WK = (np.array(g[k], dtype=float) for k in ("X", "W_Q", "W_K"))
    d = WQ.shape[1] // g["heads"]
    Q, K = X @ WQ, X @ WK
    allowed = np.tril(np.ones((3, 3), dtype=bool))
    true, late = [], []
    for j in range(g["heads"]):
        s = Q[:, j * d : (j + 1) * d] @ K[:, j * d : (j + 1) * d].T / math.sqrt(d)
        true.append(softmax(np.where(allowed, s, -np.inf)))
        late.append(np.where(allowed, softmax(s), 0.0))
    return raw, true, late


def _padded(raw: dict[str, Any]) -> np.ndarray:
    """Head 2's true weights under the key padding [1, 1, 0] (the third key masked for every query)."""
    g = raw["given"]
    X, WQ, WK = (np.array(g[k], dtype=float) for k in ("X", "W_Q", "W_K"))
    s = (X @ WQ)[:, 2:] @ (X @ WK)[:, 2:].T / math.sqrt(2)
    return softmax(np.where([True, True, False], s, -np.inf))


def _grade_weights(raw: dict[str, Any], weights: Any, j: int = 1) -> Any:
    rep = check(parse_problem(raw, "masked.toml"), {f"head.{j}.weights": weights}, "a.toml")
    return rep.results[0]


def test_weights_with_the_mask_applied_after_the_softmax_are_named() -> None:
    raw, _true, late = _masked_mh()
    for j in (1, 2):
        r = _grade_weights(raw, r3(late[j - 1]), j)
        assert r.verdict == "wrong" and r.mistake == "mask_after_softmax", r.note
        assert "mask was applied after the softmax" in r.note


@pytest.mark.parametrize("how", ["typo", "row swap", "first row [1, 0, 0] right, another wrong", "padded weights"])
def test_other_wrong_weights_are_not_taken_for_the_late_mask(how: str) -> None:
    """A one-digit typo (digits swapped), two rows swapped, a row [1, 0, 0] (which shows the mask came
    first) beside a wrong entry, and wrong weights under a key-padding mask: none is the late mask."""
    raw, true, _late = _masked_mh()
    w = np.asarray(r3(true[1]))  # head 2
    if how == "typo":
        i, k = 1, 0
        text = f"{w[i, k]:.3f}"
        swapped = float(text[:2] + text[3] + text[2] + text[4:])  # 0.576 -> 0.756: two digits swapped
        assert swapped != w[i, k]
        w[i, k] = swapped
    elif how == "row swap":  # under a key-padding mask, so that the masked zeros stay in place
        raw["given"].pop("mask")
        raw["given"]["key_padding"] = [1, 1, 0]
        w = np.asarray(r3(_padded(raw)))
        assert w[0].tolist() != w[1].tolist()
        w[[0, 1]] = w[[1, 0]]
    elif how == "first row [1, 0, 0] right, another wrong":
        assert w[0].tolist() == [1.0, 0.0, 0.0]
        w[2, 0] = round(w[2, 0] + 0.05, 3)
    else:
        raw["given"].pop("mask")
        raw["given"]["key_padding"] = [1, 1, 0]
        w = np.asarray(r3(_padded(raw)))
        w[0, 0], w[0, 1] = w[0, 1], w[0, 0]  # the two kept weights of the first row swapped
    r = _grade_weights(raw, w.tolist(), 2)
    assert r.verdict == "wrong"
    assert r.mistake is None and "mask was applied after" not in r.note, r.note
    assert ", not " in r.note  # the arithmetic note, from the answerer's own numbers


# ------------------------------------------------------------------ every slip, both ways


def _bleu(cand: str, refs: list[str], n: int) -> dict[str, Any]:
    return {"kind": "bleu", "given": {"candidate": cand, "references": refs, "max_n": n}}


INLINE: dict[str, dict[str, Any]] = {
    "qk_transposed": {
        "kind": "self-attention",
        "given": {"X": [[1, 0], [0, 1], [1, 1]], "W_Q": [[1, 2], [0, 1]], "W_K": [[1, 0], [1, 1]]},
    },
    "keys_not_values": {
        "kind": "attention",
        "score": "dot",
        "given": {"query": [1, 0.5], "keys": [[1, 0], [0, 1], [1, 1]], "values": [[2, 1], [0, 3], [1, -1]]},
    },
    "reset_swapped": GRU,
    "xh_swapped": {**RNN, "cell": {"order": "xh"}},  # the per-gate W over [x; h] ([cell] order = "xh")
    "distance_squared": {
        "kind": "similarity",
        "measure": "euclidean",
        "given": {"A": [[1, 2], [0, 1]], "B": [[2, 0], [1, 1], [-1, 1]]},
    },
    "bleu_no_bp": _bleu("the cat sat on", ["the cat sat on the mat"], 2),
    "bleu_no_clip": _bleu("the the the the the the the", ["the cat is on the mat", "there is a cat on the mat"], 1),
    # a Noam schedule with a factor of 10 and a cosine one, so that 3 decimals tell the rates apart
    "warmup_exponent": {
        "kind": "lr-schedule",
        "schedule": "noam",
        "given": {"steps": [4, 10, 25, 100], "d_model": 16, "warmup": 25, "factor": 10},
    },
    "step_from_zero": {
        "kind": "lr-schedule",
        "schedule": "cosine",
        "given": {"steps": [5, 12, 30, 39], "lr_max": 1, "warmup": 10, "total": 40},
    },
    # ε outside the root shows only with an ε as large as the numbers (LLaMA's 1e-6 changes no third decimal)
    "rms_eps_outside": {
        **tomllib.loads(Path(PROBLEMS, "layer-llama.toml").read_text()),
        "settings": {"norm": "pre", "normalization": "rms", "eps": 0.5, "rope": "half"},
    },
}

FILES: dict[str, str] = {
    "no_scale": "causal-self-attention.toml",
    "sqrt_d_model": "layer-decoder.toml",
    "dk_not_sqrt": "causal-self-attention.toml",
    "softmax_wrong_axis": "causal-self-attention.toml",
    "w_transposed": "bahdanau-additive.toml",
    "not_normalised": "bahdanau-additive.toml",
    "no_tanh": "bahdanau-additive.toml",
    "concat_swapped": "luong-concat.toml",
    "sgd_for_adam": "lstm-doc-update.toml",
    "sigmoid_for_tanh": "lstm-doc-retention.toml",
    "tanh_for_sigmoid": "lstm-doc-encoder.toml",
    "hx_swapped": "lstm-doc-encoder.toml",
    "no_bias": "lstm-doc-encoder.toml",
    "forget_not_applied": "lstm-doc-decoder.toml",
    "no_tanh_c": "lstm-doc-decoder.toml",
    "gru_update_swapped": "seq2seq-bahdanau.toml",
    "bahdanau_current_state": "seq2seq-bahdanau.toml",
    "luong_logits_from_h": "seq2seq-luong.toml",
    "wrong_vocab_row": "lstm-doc-output.toml",
    "norm_squared": "lecture-embeddings.toml",
    "cosine_one_norm": "lecture-embeddings.toml",
    "one_head": "layer-decoder.toml",
    "heads_reversed": "layer-decoder.toml",
    "no_W_O": "layer-decoder.toml",
    "mask_after_softmax": "mh-rope.toml",
    "sin_cos_swapped": "positions-sinusoidal.toml",
    "freq_no_two": "positions-sinusoidal.toml",
    "rope_reversed": "mh-rope.toml",
    "unbiased_variance": "layer-decoder.toml",
    "norm_wrong_axis": "layer-decoder.toml",
    "residual_left_out": "layer-decoder.toml",
    "norm_swapped": "layer-decoder.toml",
    "relu_for_gelu": "layer-decoder.toml",
    "top_p_early": "decode-top-p.toml",
    "top_p_late": "decode-top-p.toml",
    "beam_multiplied": "decode-beam.toml",
    "adam_l2": "adamw-clipping.toml",
    "decay_no_lr": "adamw-clipping.toml",
    "clip_each": "adamw-clipping.toml",
    "clip_weights_only": "adamw-clipping.toml",
    "smoothing_k_minus_1": "label-smoothing.toml",
    "perplexity_base_2": "lstm-doc-sequence.toml",
    "mean_of_perplexities": "lstm-doc-sequence.toml",
    # kind accounting (worked by hand in test_accounting_check.py)
    "tied_counted_twice": "gpt2-small-accounting.toml",
    "lm_head_left_out": "llama2-7b-accounting.toml",
    "biases_forgotten": "gpt2-small-accounting.toml",
    "norms_forgotten": "gpt2-small-accounting.toml",
    "swiglu_4d_ff": "llama2-7b-accounting.toml",
    "flops_no_two": "gpt2-small-accounting.toml",
    "heads_for_kv_heads": "gqa-kv-cache.toml",
    "kv_not_doubled": "llama2-7b-accounting.toml",
    "wrong_dtype_bytes": "llama2-7b-accounting.toml",
    # accounting at training scale (worked by hand in tests/kinds/test_accounting_scale.py)
    "master_forgotten": "accounting-llama2-70b.toml",
    "zero_stage_confused": "accounting-llama2-70b.toml",
    "gib_for_gb": "accounting-llama2-70b.toml",
    # kind attention-backward (their arithmetic: tests/check/test_backward_slips.py)
    "jacobian_diagonal_only": "backward-one-head-causal.toml",
    "grad_V_no_transpose": "backward-one-head-causal.toml",
    "grad_K_no_transpose": "backward-two-heads.toml",
    "grad_no_scale": "backward-one-head-causal.toml",
    "grad_scale_twice": "backward-two-heads.toml",
    "grad_X_query_path_only": "backward-one-head-causal.toml",
    "masked_given_gradient": "backward-one-head-causal.toml",
    # kind online-softmax
    "online_sum_not_rescaled": "online-softmax-row.toml",
    "online_output_not_rescaled": "online-softmax-matrix-v.toml",
    "online_rescale_flipped": "online-softmax-row.toml",
    "logsumexp_no_max": "online-softmax-row.toml",
    "online_output_not_divided": "online-softmax-matrix-v.toml",
    # the modern layer, the sliding window, top-k with top-p
    "rms_mean_subtracted": "layer-llama.toml",
    "swiglu_swapped": "layer-llama.toml",
    "silu_wrong_branch": "layer-llama.toml",
    "window_too_wide": "layer-llama.toml",
    "window_too_narrow": "layer-llama.toml",
    "top_p_before_top_k": "decode-top-k-top-p.toml",
    # kind contrastive (their arithmetic: tests/check/test_contrastive_check.py)
    "contrastive_no_temperature": "contrastive-clip.toml",
    "contrastive_temperature_multiplied": "contrastive-clip.toml",
    "contrastive_rows_not_normalised": "contrastive-clip.toml",
    "contrastive_sum_for_mean": "contrastive-clip.toml",
}


# kind bpe: slips at steps that hold tokens (a merge, a word's tokens) are tested both ways in
# tests/check/test_bpe_check.py, with answers counted by hand; the numeric ones there and here
INLINE["bpe_unweighted"] = {"kind": "bpe", "given": {"corpus": "low low lower newest", "merges": 2}}
INLINE["bpe_across_words"] = {"kind": "bpe", "given": {"corpus": "ab ba ab ab", "merges": 1}}
# kind quantization: a zero-point tensor, a clamp that bites (−min / s = 1.5 and 5.07 / s = 253.5 round up
# together past 255) and ties at halves (absmax, 4 bits, scale 1)
_QUANT = {"kind": "quantization", "given": {"W": [[1.2, -0.5, -4.3, 1.2], [-3.1, 0.8, 2.4, 5.4]], "bits": 8,
                                            "scheme": "zeropoint"}}  # fmt: skip
INLINE["zero_point_sign"] = _QUANT
INLINE["no_clamp"] = {"kind": "quantization", "given": {"W": [[-0.03, 5.07, 1.0]], "bits": 8, "scheme": "zeropoint"}}
INLINE["round_half_away"] = {
    "kind": "quantization",
    "given": {"W": [[0.5, 6.0, -2.5, 7.0], [1, -0.5, 2, 4.5]], "bits": 4},
}
FILES["absmax_power_of_two"] = "quantization-absmax-rows.toml"
FILES["per_tensor_for_row"] = "quantization-absmax-rows.toml"
# kind dpo: the worked example (β = 0.1, references that differ from the policy, a sigmoid loss)
for _slip in (
    "dpo_beta_left_out",
    "dpo_reference_not_subtracted",
    "dpo_chosen_rejected_swapped",
    "dpo_sigma_for_log_sigma",
):
    FILES[_slip] = "dpo-two-pairs.toml"
# kind speculative: the worked example (a accepted, b rejected: the residual at 2), and three drafts whose
# third test passes after the second is rejected (r = 0.2 ≤ 0.75 after 0.9 > 0.75)
for _slip in (
    "speculative_ratio_inverted",
    "speculative_residual_not_normalised",
    "speculative_residual_no_max",
    "speculative_next_from_target",
):
    FILES[_slip] = "speculative-two-drafts.toml"
INLINE["speculative_continued_after_rejection"] = {
    "kind": "speculative",
    "vocab": ["a", "b", "c", "d"],
    "given": {
        "draft": [[0.4, 0.3, 0.2, 0.1]] * 3,
        "target": [[0.3, 0.4, 0.2, 0.1]] * 3 + [[0.25, 0.25, 0.25, 0.25]],
        "drafted": ["a", "a", "a"],
        "uniforms": [0.5, 0.9, 0.2],
        "resample": 0.35,
    },
}
# the budget without the backward pass: N and D small enough that a typo's +0.271 shows (LLaMA-2-70B's
# budget, 8.3e23, is past what a float tells apart; tests/check/test_accounting_units.py checks it there)
INLINE["training_forward_only"] = {"kind": "accounting", "given": {"parameters": 1_000, "training_tokens": 300}}
LABEL_SLIPS = {"bpe_tie_other": "tests/check/test_bpe_check.py", "bpe_greedy_longest": "tests/check/test_bpe_check.py"}
# kind grpo: the spec's group (binary rewards, completions of different lengths, a reference) and one
# whose clips bind (max for min and the clip on the advantage change nothing where no clip binds)
for _slip in (
    "grpo_std_divisor",
    "grpo_advantages_not_normalised",
    "grpo_kl_sign",
    "grpo_normalization_swapped",
):
    FILES[_slip] = "grpo-four-completions.toml"
FILES["grpo_max_for_min"] = "grpo-clipped-tokens.toml"
FILES["grpo_clip_on_advantage"] = "grpo-clipped-tokens.toml"  # an advantage past 1 + ε
# kind moe (their arithmetic: tests/check/test_moe_check.py): the top-2 example renormalises, the Switch one does not
for _slip in (
    "moe_softmax_over_tokens",
    "moe_gates_not_renormalised",
    "moe_loss_without_e",
    "moe_fraction_from_probabilities",
):
    FILES[_slip] = "moe-mixtral.toml"
FILES["moe_gates_renormalised"] = "moe-switch.toml"


def test_the_audit_covers_every_named_slip() -> None:
    assert set(FILES) | set(INLINE) | set(LABEL_SLIPS) == set(MISTAKES)


def _problem(slip: str) -> Problem:
    if slip in INLINE:
        return parse_problem(INLINE[slip], f"{slip}.toml")
    return load_problem(Path(PROBLEMS, FILES[slip]))


def _with_slip(problem: Problem, slip: str) -> tuple[str, np.ndarray, int | None]:
    """The first step the slip changes (a numeric one) and its value with the slip."""
    mech = MECHANISMS[problem.kind]
    truth = solve(problem, exact=False, carry_rounded=False)
    rows = [None]
    if slip == "wrong_vocab_row":
        rows = list(range(problem.data.output.W_out.shape[0]))
    for arg in rows:
        chain = Chain("float", mistake=slip, mistake_arg=arg)
        with np.errstate(all="ignore"):
            steps = {s.id: s for s in mech.run(problem, chain)}
        for s in truth.steps:
            if s.id not in chain.computed or isinstance(s.value, str):
                continue
            v = as_step(chain.computed[s.id], steps.get(s.id))
            t = np.asarray(s.value, dtype=float)
            if v.shape == t.shape and not np.allclose(r3(v), r3(t), equal_nan=True):
                return s.id, v, arg
    raise AssertionError(f"{slip} changes no step of its problem")


SLIPS = sorted(set(MISTAKES) - set(LABEL_SLIPS))


@pytest.mark.parametrize("slip", SLIPS)
def test_an_answer_built_from_the_slip_is_named(slip: str) -> None:
    problem = _problem(slip)
    step, value, _arg = _with_slip(problem, slip)
    r = check(problem, {step: written(value)}, "a.toml").results[0]
    assert r.verdict == "wrong", (step, r.verdict, r.note)
    assert r.mistake is not None, (step, r.note)
    if r.mistake != slip:  # only a slip that gives the same numbers here (√d_model = d_k when d_k = 2)
        _other_step, other, _ = _with_slip(problem, r.mistake)
        assert r3(other) == r3(value), (slip, r.mistake)


def _typo(x: np.ndarray) -> np.ndarray:
    """One entry mistyped: a digit changed where the slip and the truth both differ from it."""
    out = np.array(x, dtype=float)
    flat = out.reshape(-1)
    i = int(np.argmax(np.isfinite(flat)))
    flat[i] = round(flat[i] + 0.271, 3)
    return out


@pytest.mark.parametrize("slip", SLIPS)
def test_an_answer_with_a_typo_is_not_taken_for_the_slip(slip: str) -> None:
    """The slip's numbers with one entry mistyped, and the true numbers with one entry mistyped: no
    slip is named (the note works the wrong entries out instead)."""
    problem = _problem(slip)
    step, value, _arg = _with_slip(problem, slip)
    truth = np.asarray(solve(problem, exact=False, carry_rounded=False)[step], dtype=float)
    for answer in (_typo(np.asarray(r3(value))), _typo(np.asarray(r3(truth)))):
        r = check(problem, {step: written(answer)}, "a.toml").results[0]
        assert r.verdict == "wrong", (step, r.note)
        assert r.mistake is None, (slip, step, r.mistake, r.note)


# ------------------------------------------------------------------ the arithmetic notes' own diagnoses

DOT = {"kind": "attention", "score": "dot", "given": {"query": [1, 0.3], "keys": [[1, 0], [0, 1], [2, 1]]}}


def _scores_note(third: str) -> str:
    # s · h_i by hand: [1·1 + 0.3·0, 1·0 + 0.3·1, 1·2 + 0.3·1] = [1, 0.3, 2.3]
    return check(parse_problem(DOT, "dot.toml"), {"scores": ["1", "0.3", third]}, "a").results[0].note


def test_a_flipped_sign_is_named_when_it_gives_the_answer() -> None:
    assert "the sign of 0.3·1 = 0.3 was flipped" in _scores_note("1.7")  # 2 − 0.3
    assert "the term 1·2 = 2 was left out" in _scores_note("0.3")  # 0.3 alone


@pytest.mark.parametrize("third", ["3.2", "1.75", "1.6"])
def test_a_typo_or_a_near_miss_is_not_given_a_culprit(third: str) -> None:
    """2.3 typed 3.2, or 1.75 (2 − 0.3 is 1.7, not 1.75 at 2 decimals), or 1.6: no product explains them."""
    note = _scores_note(third)
    assert "flipped" not in note and "left out" not in note
    assert note.rstrip(".").endswith(f"= 2.3, not {third}"), note  # no product named after it


@pytest.mark.parametrize(("third", "named"), [("9.975", True), ("9.973", True), ("9.980", False), ("9.947", False)])
def test_a_last_digit_rounding_slip_is_named_only_one_unit_off(third: str, named: bool) -> None:
    """exp(2.3) = 9.97418 is 9.974 to 3 decimals: 9.975 and 9.973 are one unit off in the last digit
    (named); 9.980 and 9.947 (digits swapped) are not."""
    e = np.exp([1.0, 0.3, 2.3])  # exp of the scores [1, 0.3, 2.3]
    assert round_half_up(float(e[2]), 3) == 9.974
    answer = [f"{e[0]:.3f}", f"{e[1]:.3f}", third]
    note = check(parse_problem(DOT, "dot.toml"), {"exponentials": answer}, "a").results[0].note
    assert f"= 9.974, not {third}" in note
    assert ("a rounding slip in the last digit" in note) == named, note
