"""Kind accounting under ``attncalc check``: whole numbers are judged to the unit
(124,439,808 is right, 124,439,807 wrong, however the answer is written), and each named slip is
named for an answer built with it (worked out by hand here) and not for a near miss.

The hand values (GPT-2 small: 124,439,808 parameters, 12 blocks, d_model 768, tied; LLaMA-2-7B:
6,738,415,616, 32 blocks, d_model 4,096, SwiGLU d_ff 11,008, bf16, 131,072,000 in its LM head; Llama 3.1
8B at 32,768 tokens: 8 of 32 heads keep keys and values, 4 GiB in bf16) are the published totals and
the products written in the comments."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from attncalc.check import check
from attncalc.errors import ProblemError
from attncalc.homework.generate import Options, answers_toml, generate, problem_toml
from attncalc.mechanisms import solve
from attncalc.parse import load_problem

from ..helpers import PROBLEMS

GPT2 = "gpt2-small-accounting.toml"
LLAMA = "llama2-7b-accounting.toml"
GQA = "gqa-kv-cache.toml"


def grade(name: str, answers: dict[str, Any]) -> dict[str, Any]:
    report = check(load_problem(Path(PROBLEMS, name)), answers, "a.toml")
    return {r.id: r for r in report.results}


# ------------------------------------------------------------------ whole numbers, to the unit


@pytest.mark.parametrize(
    ("answer", "right"),
    [
        (124_439_808, True),
        ("124439808", True),
        ("12*10369984", True),  # an exact form that is the count
        (124_439_807, False),
        (124_439_809, False),
        ("124439807/1", False),  # an exact form is judged to the unit too, not to 1e-9 relative
        ("124439808.4", False),  # written to one decimal: judged at it
        (1.2444e8, False),  # 124,440,000: a rounded count is not the count
    ],
)
def test_a_count_is_judged_to_the_unit(answer: Any, right: bool) -> None:
    assert 12 * 10_369_984 == 124_439_808
    r = grade(GPT2, {"parameters": answer})["parameters"]
    assert (r.verdict == "correct") == right, (answer, r.verdict, r.note)


def test_a_count_written_with_thousands_separators() -> None:
    # GPT-2 small's cache, fp32: 2 · 12 layers · 12 heads · 64 · 1,024 tokens · 4 bytes
    assert 2 * 12 * 12 * 64 * 1024 * 4 == 75_497_472
    r = grade(GPT2, {"kv_cache": "75,497,472"})["kv_cache"]
    assert r.verdict == "correct", r.note
    r = grade(GPT2, {"kv_cache": "75,497,473"})["kv_cache"]
    assert r.verdict == "wrong" and r.note.endswith("not 75,497,473.")
    assert grade(GPT2, {"parameters": " 124,439,808 "})["parameters"].verdict == "correct"


@pytest.mark.parametrize("written", ["1,2", "0,155", "7,5497,472", "75,497,47", "1,000.5"])
def test_a_comma_that_is_not_a_grouping_in_threes_is_refused(written: str) -> None:
    with pytest.raises(ProblemError, match="kv_cache: unexpected character ','"):
        grade(GPT2, {"kv_cache": written})


def test_large_counts_to_the_unit_and_the_expected_value_in_full() -> None:
    # LLaMA-2-7B's training FLOPs: 3 · 62,921,270,886,400 = 188,763,812,659,200 (past 1e12, below 2^53)
    r = grade(LLAMA, {"flops.training": 188_763_812_659_201})["flops.training"]
    assert r.verdict == "wrong"
    assert r.expected_shown == "188,763,812,659,200"
    assert "188,763,812,659,200, not 188,763,812,659,201" in r.note  # the answer grouped as the count is
    assert grade(LLAMA, {"flops.training": 188_763_812_659_200})["flops.training"].verdict == "correct"


def test_a_wrong_count_carries_into_the_total() -> None:
    # lm_head counted for a tied head (38,597,376); the total built on it, 163,037,184, is carried
    rs = grade(GPT2, {"lm_head": 38_597_376, "parameters": 163_037_184, "memory.parameters": 163_037_184 * 4})
    assert rs["lm_head"].verdict == "wrong" and rs["lm_head"].mistake == "tied_counted_twice"
    assert rs["parameters"].verdict == "carried"
    assert rs["memory.parameters"].verdict == "carried"


def test_a_total_carried_only_when_it_follows_from_every_earlier_answer() -> None:
    # LLaMA-2-7B with two slips: layer.ffn = 3 · 4,096 · (4 · 4,096) = 201,326,592 (true 3 · 4,096 ·
    # 11,008 = 135,266,304) and lm_head = 0 (true 32,000 · 4,096 = 131,072,000).
    true_ffn, slip_ffn, head = 3 * 4096 * 11008, 3 * 4096 * 4 * 4096, 32000 * 4096
    assert (true_ffn, slip_ffn, head) == (135_266_304, 201_326_592, 131_072_000)
    # 6,738,415,616 − 131,072,000: the TRUE FFN with no head, not what these answers add up to
    only_head = 6_738_415_616 - head
    assert only_head == 6_607_343_616
    # the student's own total: 32 blocks with the wider FFN, no head
    own = 6_738_415_616 - head + 32 * (slip_ffn - true_ffn)
    assert own == 8_721_272_832
    base = {"layer.ffn": slip_ffn, "lm_head": 0}
    rs = grade(LLAMA, {**base, "parameters": only_head})
    assert rs["layer.ffn"].mistake == "swiglu_4d_ff" and rs["lm_head"].mistake == "lm_head_left_out"
    assert rs["parameters"].verdict == "wrong", rs["parameters"].note
    assert rs["parameters"].began_at is None
    rs = grade(LLAMA, {**base, "parameters": own})
    assert rs["parameters"].verdict == "carried"
    assert rs["parameters"].began_at in ("layer.ffn", "lm_head")
    # the block's own total written right (4 · 4,096² + 135,266,304 + 2 · 4,096 = 202,383,360): the wrong
    # layer.ffn no longer reaches the total, so the error it reflects began at lm_head, not layer.ffn
    layer = 4 * 4096 * 4096 + true_ffn + 2 * 4096
    assert layer == 202_383_360
    rs = grade(LLAMA, {**base, "layer": layer, "parameters": only_head})
    assert rs["parameters"].verdict == "carried" and rs["parameters"].began_at == "lm_head"
    # with the FFN right, the head's slip alone is carried into the total, and began there
    rs = grade(LLAMA, {"layer.ffn": true_ffn, "lm_head": 0, "parameters": only_head})
    assert rs["parameters"].verdict == "carried" and rs["parameters"].began_at == "lm_head"


# ------------------------------------------------------------------ each slip, both ways

# (problem, step, the answer with the slip worked by hand, the slip)
SLIPS = [
    # 124,439,808 + 50,257 · 768
    (GPT2, "parameters", 124_439_808 + 38_597_376, "tied_counted_twice"),
    # 6,738,415,616 − 32,000 · 4,096
    (LLAMA, "parameters", 6_738_415_616 - 131_072_000, "lm_head_left_out"),
    # 12 blocks · (Q, K, V, O biases 4 · 768 + FFN biases 3,072 + 768) = 82,944 fewer
    (GPT2, "parameters", 124_439_808 - 12 * (4 * 768 + 3072 + 768), "biases_forgotten"),
    # 12 blocks · 2 LayerNorms · 2 · 768, and the final 2 · 768
    (GPT2, "parameters", 124_439_808 - 12 * 4 * 768 - 2 * 768, "norms_forgotten"),
    # 3 · 4,096 · (4 · 4,096) instead of 3 · 4,096 · 11,008
    (LLAMA, "layer.ffn", 3 * 4096 * 16384, "swiglu_4d_ff"),
    # every product counted m·n·p: half of 291,648,307,200
    (GPT2, "flops.forward", 291_648_307_200 // 2, "flops_no_two"),
    # 2 · 32 layers · 32 heads (not 8) · 128 · 32,768 · 2 bytes = 16 GiB
    (GQA, "kv_cache", 2 * 32 * 32 * 128 * 32768 * 2, "heads_for_kv_heads"),
    # 32 · 32 · 128 · 4,096 · 2: K or V only, 1 GiB
    (LLAMA, "kv_cache", 32 * 32 * 128 * 4096 * 2, "kv_not_doubled"),
    # 6,738,415,616 parameters · 4 bytes, though bf16 is 2
    (LLAMA, "memory.parameters", 6_738_415_616 * 4, "wrong_dtype_bytes"),
]


@pytest.mark.parametrize(("name", "step", "answer", "slip"), SLIPS, ids=[s[3] for s in SLIPS])
def test_an_answer_built_with_the_slip_is_named(name: str, step: str, answer: int, slip: str) -> None:
    r = grade(name, {step: answer})[step]
    assert r.verdict == "wrong"
    assert r.mistake == slip, (r.mistake, r.note)


@pytest.mark.parametrize(("name", "step", "answer", "slip"), SLIPS, ids=[s[3] for s in SLIPS])
@pytest.mark.parametrize("off", [1, -1000])
def test_a_near_miss_is_not_taken_for_the_slip(name: str, step: str, answer: int, slip: str, off: int) -> None:
    r = grade(name, {step: answer + off})[step]
    assert r.verdict == "wrong"
    assert r.mistake is None, (slip, r.mistake, r.note)
    assert ", not " in r.note  # the count written out instead


def test_a_slip_that_cannot_happen_is_not_tried() -> None:
    """LLaMA has no biases: leaving them out changes nothing, so a wrong total is never put down to it;
    GPT-2 is multi-head: its cache cannot use H for H_kv; its d_ff is 4 · d_model."""
    r = grade(LLAMA, {"parameters": 6_738_415_616 - 12 * (4 * 4096)})["parameters"]
    assert r.mistake is None
    r = grade(GPT2, {"kv_cache": 2 * 75_497_472})["kv_cache"]
    assert r.mistake not in ("heads_for_kv_heads", "kv_not_doubled")


def test_fp32_bytes_for_bf16_are_named_and_a_kv_cache_of_the_wrong_dtype_too() -> None:
    # LLaMA-2-7B's cache in fp32 bytes: 2 · 32 · 32 · 128 · 4,096 · 4 = 4 GiB
    r = grade(LLAMA, {"kv_cache": 2 * 32 * 32 * 128 * 4096 * 4})["kv_cache"]
    assert r.mistake == "wrong_dtype_bytes"


# ------------------------------------------------------------------ generate makes variants check accepts


def test_generated_keys_check_all_correct(tmp_path: Path) -> None:
    result = generate(Options(kind="accounting", count=4, seed=3))
    assert len(result.derivations) == 4
    for k, (raw, d) in enumerate(zip(result.problems, result.derivations, strict=True), 1):
        problem = tmp_path / f"v{k}.toml"
        problem.write_text(problem_toml(raw, 3))
        key = tmp_path / f"k{k}.toml"
        key.write_text(answers_toml(d, problem.name))
        answers = tomllib.loads(key.read_text())
        answers.pop("problem")
        report = check(load_problem(problem), answers, str(key))
        assert all(r.verdict == "correct" for r in report.results)
        assert len(report.results) == len(solve(load_problem(problem)).steps)


def test_check_json_gives_counts_as_exact_integers() -> None:
    r = grade(GPT2, {"parameters": 124_439_807})["parameters"]
    assert r.expected == 124_439_808 and type(r.expected) is int
    assert r.given == 124_439_807 and type(r.given) is int


@pytest.mark.parametrize("seed", range(1, 9))
def test_generated_tokens_fit_the_context(seed: int) -> None:
    # seed 3 drew a RoPE model with context 256 and tokens 2048: a model is run within its context
    # (a learned table could not even hold them), in both families
    for raw in generate(Options(kind="accounting", count=6, seed=seed)).problems:
        g = raw["given"]
        assert g["tokens"] <= g["context"], g


# ------------------------------------------------------------------ a training budget past 2^53


def test_a_budget_past_float_precision_is_written_exactly_in_the_note(tmp_path: Path) -> None:
    """6 · N · D with N = 280e9 and D = 300e9 is 504 · 10^21 exactly (Python integers), a number float64
    holds only as 504,000,000,000,000,016,777,216: the note writes the count, and the answer written as
    bare digits is grouped as the views group a count."""
    budget = 6 * 280 * 10**9 * 300 * 10**9
    assert budget == 504 * 10**21 and float(budget) > 2**53
    path = tmp_path / "budget.toml"
    path.write_text('title = "budget"\nkind = "accounting"\n[given]\nparameters = 280e9\ntraining_tokens = 300e9\n')
    problem = load_problem(path)
    for written in (540 * 10**21, "540000000000000000000000"):
        r = {x.id: x for x in check(problem, {"flops.training_total": written}, "a.toml").results}
        note = r["flops.training_total"].note
        assert r["flops.training_total"].verdict == "wrong"
        assert f"= {budget:,}, not {540 * 10**21:,}." in note, note
        assert "16,777,216" not in note
    note = check(problem, {"flops.training_total": "5.4e23"}, "a.toml").results[0].note
    assert note.endswith(f"= {budget:,}, not 5.4e23."), note
