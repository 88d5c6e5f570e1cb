"""Kind accounting with N stated (`[given] parameters`): a course that gives the parameter count instead of
the architecture (Chinchilla: N = 70e9, D = 1.4e12). Only what follows from N is derived: the training
budget 6 · N · D, the memory of the weights, gradients, master copy and AdamW state, and one device's
share under ZeRO. Every expected number is recomputed here from the published N and D and from the
formulas (Hoffmann et al. 2022; Rajbhandari et al. 2020, section 5.1: 2Ψ + 2Ψ + KΨ bytes, K = 12 with
the fp32 master copy), never attncalc's output."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from attncalc.check import check
from attncalc.errors import ProblemError
from attncalc.parse import load_problem, parse_problem

from ..helpers import PROBLEMS, one_line_refusal, run_cli, solve_raw

CHINCHILLA = Path(PROBLEMS, "accounting-chinchilla.toml")
N, D = 70 * 10**9, 14 * 10**11  # Hoffmann et al. 2022: 70B parameters, 1.4T tokens


def _whole(d: Any, step_id: str) -> int:
    return int(d.step(step_id).whole)


def test_chinchilla_budget_is_published_588e21() -> None:
    """Hoffmann et al. 2022 ("Training Compute-Optimal Large Language Models"): Chinchilla's budget
    C ≈ 6 · N · D = 6 · 70e9 · 1.4e12 = 5.88e23 FLOPs, exactly 588 · 10^21."""
    from attncalc.mechanisms import solve

    d = solve(load_problem(CHINCHILLA))
    assert _whole(d, "flops.training_total") == 6 * N * D == 588 * 10**21
    assert float(d["flops.training_total"]) == pytest.approx(5.88e23, rel=1e-15)


def test_memory_and_zero_follow_from_n_alone() -> None:
    """bf16 mixed precision: 2 + 2 bytes of weights and gradients, 4 of the fp32 master copy, 8 of AdamW's
    moments; ZeRO stage 3 over 64 devices keeps (2 + 2 + 12) · ⌈N / 64⌉ bytes on each."""
    from attncalc.mechanisms import solve

    d = solve(load_problem(CHINCHILLA))
    assert _whole(d, "memory.parameters") == 2 * N
    assert _whole(d, "memory.gradients") == 2 * N
    assert _whole(d, "memory.master") == 4 * N
    assert _whole(d, "memory.optimizer") == 8 * N
    assert _whole(d, "memory.training") == 16 * N
    assert _whole(d, "memory.per_device") == 16 * -(-N // 64) == 17_500_000_000


def test_no_step_needs_the_architecture() -> None:
    """The parameter count's parts, the forward pass, the KV cache and LoRA are not derived; nor is the
    budget from the forward pass (it needs the architecture)."""
    d = solve_raw({"kind": "accounting", "given": {"parameters": 1000, "training_tokens": 20}})
    assert d.step_ids == [
        "flops.training_total",
        "memory.parameters",
        "memory.gradients",
        "memory.optimizer",
        "memory.training",
    ]
    assert _whole(d, "flops.training_total") == 6 * 1000 * 20
    assert _whole(d, "memory.training") == 1000 * (4 + 4 + 8)  # fp32: weights and gradients 4 bytes each


def test_the_header_and_the_givens_say_n_was_given(cli: Any) -> None:
    out = " ".join(cli("solve", str(CHINCHILLA), "--width", "200").stdout.split())
    assert "accounting · N = 70,000,000,000 parameters (given) · bf16" in out
    assert "N parameters (given) = 70,000,000,000" in out
    for word in ("vocab", "d_model", "KV cache", "Forward pass"):
        assert word not in out, word


def test_json_lists_the_given_n_and_the_counts_as_integers(cli: Any) -> None:
    doc = json.loads(cli("solve", str(CHINCHILLA), "-f", "json").stdout)
    steps = {s["id"]: s for s in doc["steps"]}
    assert steps["flops.training_total"]["value"] == 6 * N * D
    assert steps["memory.training"]["value"] == 16 * N


def test_check_grades_answers_from_the_given_n() -> None:
    """Right answers are correct; an fp32 parameter memory (4 bytes) for bf16 is the named dtype slip."""
    report = check(
        load_problem(CHINCHILLA),
        {"flops.training_total": "588000000000000000000000", "memory.parameters": str(4 * N)},
        "a.toml",
    )
    by = {r.id: r for r in report.results}
    assert by["flops.training_total"].verdict == "correct"
    assert by["memory.parameters"].verdict == "wrong"
    assert by["memory.parameters"].mistake == "wrong_dtype_bytes", by["memory.parameters"].note


@pytest.mark.parametrize("key", ["vocab", "layers", "tokens", "ffn", "lora_rank"])
def test_an_architecture_key_beside_parameters_is_refused(key: str, tmp_path: Path) -> None:
    raw = tomllib.loads(CHINCHILLA.read_text(encoding="utf-8"))
    raw["given"][key] = {"ffn": "gelu"}.get(key, 8)
    with pytest.raises(ProblemError, match=rf"given\.{key}: is given, but so is parameters = 70,000,000,000"):
        parse_problem(raw, "c.toml")
    path = tmp_path / "both.toml"
    path.write_text(CHINCHILLA.read_text(encoding="utf-8").replace("[given]\n", f"[given]\n{key} = 8\n"))
    one_line_refusal(run_cli("solve", str(path)), "both.toml", f"given.{key}")


def test_without_parameters_the_architecture_is_still_required() -> None:
    """The message of a file that states neither N nor the architecture is the one it always was."""
    with pytest.raises(ProblemError, match=r"given\.vocab: missing: V: the vocabulary's size"):
        parse_problem({"kind": "accounting", "given": {"training_tokens": 10}}, "c.toml")
    with pytest.raises(ProblemError, match=r"given\.parameters: is 0: expected a whole number from 1"):
        parse_problem({"kind": "accounting", "given": {"parameters": 0}}, "c.toml")
    with pytest.raises(ProblemError, match=r"given\.zero: is 1, but ZeRO partitions"):
        parse_problem({"kind": "accounting", "given": {"parameters": 10, "zero": 1}}, "c.toml")


def test_the_json_schema_has_the_key_and_one_of_the_two_ways(cli: Any) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(cli("schema", "accounting").stdout)
    given = schema["properties"]["given"]
    assert given["properties"]["parameters"]["type"] == "integer"
    v = jsonschema.Draft202012Validator(schema)
    chinchilla = tomllib.loads(CHINCHILLA.read_text(encoding="utf-8"))
    assert list(v.iter_errors(chinchilla)) == []
    both = json.loads(json.dumps(chinchilla))
    both["given"]["vocab"] = 50257
    assert list(v.iter_errors(both))
    neither = {"kind": "accounting", "given": {"training_tokens": 10}}
    assert list(v.iter_errors(neither))
