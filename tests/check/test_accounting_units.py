"""Kind accounting under ``attncalc check`` at training scale: a memory answer with a unit ("142.5 GiB",
"153.0 GB", "327,680 B"), judged after conversion at the precision written; counts past 2^53 judged to
the last digit; and the named slips of a training run, each both ways: the fp32 master copy forgotten,
another ZeRO stage's formula, GiB for GB, the budget without the backward pass (2·N·D).

The hand values: LLaMA-2-70B (problems/accounting-llama2-70b.toml) has Ψ = 68,976,648,192 parameters
(transformers' count, tests/kinds/test_accounting_scale.py); trained in bf16 mixed precision with AdamW it
needs 16Ψ = 1,103,626,371,072 bytes = 1,027.832 GiB (÷ 2^30) = 1,103.626 GB (÷ 10^9) = 1.0037 TiB =
1,052,500.125 MiB; under ZeRO stage 2 on 64 devices one device keeps 2Ψ + 14Ψ/64 = 137,953,296,384 +
15,088,641,792 = 153,041,938,176 bytes = 142.531 GiB = 153.042 GB; without the master copy (K = 8)
2Ψ + 10Ψ/64 = 148,730,897,664; at stage 3, 16Ψ/64 = 17,244,162,048; at stage 1, 4Ψ + 12Ψ/64 =
288,839,714,304. The budget: 6 · Ψ · 2·10^12 = 827,719,778,304,000,000,000,000 (8.277e23)."""

from __future__ import annotations

import html
import json
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from attncalc.check import check
from attncalc.errors import ProblemError
from attncalc.parse import load_problem

from ..helpers import PROBLEMS

EXAMPLE = Path(PROBLEMS, "accounting-llama2-70b.toml")
PSI = 68_976_648_192
TRAINING = 16 * PSI
PER_DEVICE = 2 * PSI + 14 * PSI // 64
BUDGET = 6 * PSI * 2 * 10**12


def grade(answers: dict[str, Any]) -> dict[str, Any]:
    report = check(load_problem(EXAMPLE), answers, "a.toml")
    return {r.id: r for r in report.results}


def test_the_hand_values() -> None:
    assert TRAINING == 1_103_626_371_072 and PER_DEVICE == 153_041_938_176
    assert BUDGET == 827_719_778_304_000_000_000_000


# ------------------------------------------------------------------ units


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("1,027.8 GiB", "correct"),  # 1,027.832 GiB to 1 decimal
        ("1027.83 GiB", "correct"),
        ("1,028 GiB", "correct"),
        ("1,027.84 GiB", "wrong"),  # to 2 decimals it is 1,027.83
        ("1,027.7 GiB", "wrong"),
        ("1,103.6 GB", "correct"),  # 1,103.626 GB
        ("1,103.63 GB", "correct"),
        ("1,103.7 GB", "wrong"),
        ("1.1 TB", "correct"),
        ("1.0 TiB", "correct"),  # 1.0037 TiB
        ("1.00 TiB", "correct"),
        ("1.01 TiB", "wrong"),
        ("1,052,500.1 MiB", "correct"),  # 1,052,500.125 MiB
        ("1052500 MiB", "correct"),
        ("1,103,626,371,072 B", "correct"),
        ("1103626371072 bytes", "correct"),
        ("1,103,626,371,073 B", "wrong"),  # bytes are judged to the byte
        ("1,103,626,371 KB", "correct"),
    ],
)
def test_a_memory_answer_with_a_unit_is_judged_at_its_precision(answer: str, verdict: str) -> None:
    r = grade({"memory.training": answer})["memory.training"]
    assert r.verdict == verdict, (answer, r.note)
    assert r.given_shown == answer  # shown as written
    assert r.expected_shown == "1,103,626,371,072"


def test_a_wrong_answer_with_a_unit_is_told_the_size_in_its_unit() -> None:
    r = grade({"memory.training": "1,027.7 GiB"})["memory.training"]
    assert r.note.endswith("In GiB it is 1,027.832 (judged to ±0.05 GiB, as written).")
    r = grade({"memory.per_device": "150 GB"})["memory.per_device"]
    assert r.note.endswith("In GB it is 153.042 (judged to ±0.5 GB, as written).")  # 153,041,938,176 / 10^9


def test_the_kib_case_by_hand() -> None:
    # 16Ψ / 1,024 = 1,077,760,128 exactly? 1,077,760,128 · 1,024 = 1,103,626,371,072: yes, so right
    assert 1_077_760_128 * 1024 == TRAINING
    assert grade({"memory.training": "1,077,760,128 KiB"})["memory.training"].verdict == "correct"
    assert grade({"memory.training": "1,077,760,129 KiB"})["memory.training"].verdict == "wrong"


def test_per_device_answers_in_the_units_the_spec_shows() -> None:
    rs = grade({"memory.per_device": "142.5 GiB", "kv_cache": "1,280 MiB", "memory.master": "275,906,592,768 B"})
    assert rs["memory.per_device"].verdict == "correct"  # 142.531 GiB
    assert rs["kv_cache"].verdict == "correct"  # 2 · 80 · 8 · 128 · 4,096 · 2 = 1,342,177,280 = 1,280 MiB
    assert rs["memory.master"].verdict == "correct"  # 4Ψ
    assert grade({"memory.per_device": "153.0 GB"})["memory.per_device"].verdict == "correct"


def test_a_unit_on_a_count_of_flops_or_parameters_is_refused_naming_the_key(cli: Any, tmp_path: Path) -> None:
    with pytest.raises(ProblemError, match=r"flops\.forward.*counts FLOPs, not bytes"):
        grade({"flops.forward": "606 GB"})
    answers = tmp_path / "a.toml"
    answers.write_text('parameters = "69 GB"\n')
    result = cli("check", str(EXAMPLE), str(answers))
    assert result.exit_code == 2
    assert "a.toml" in result.stderr and "parameters" in result.stderr and "Traceback" not in result.output


def test_a_bare_number_right_in_gib_is_wrong_as_bytes_and_says_so() -> None:
    r = grade({"memory.training": "1027.8"})["memory.training"]
    assert r.verdict == "wrong"
    assert 'as GiB, 1027.8 is right: write the unit, "1027.8 GiB"' in r.note
    r = grade({"memory.training": "999.1"})["memory.training"]
    assert r.verdict == "wrong" and "write the unit" not in r.note


# ------------------------------------------------------------------ counts past 2^53, every digit


def test_a_budget_past_two_to_the_53_is_judged_to_the_last_digit() -> None:
    assert float(BUDGET + 1) == float(BUDGET)  # float64 cannot tell them apart
    r = grade({"flops.training_total": BUDGET})["flops.training_total"]
    assert r.verdict == "correct" and r.expected == BUDGET and r.given == BUDGET
    r = grade({"flops.training_total": "827,719,778,304,000,000,000,001"})["flops.training_total"]
    assert r.verdict == "wrong" and "off by +1" in r.note
    assert r.given == BUDGET + 1  # the integer written, exactly (JSON)


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [("8.28e23", "correct"), ("8.277e23", "correct"), ("8.27e23", "wrong"), ("8.3e23", "correct")],
)
def test_a_count_in_e_notation_is_judged_at_its_mantissas_precision(answer: str, verdict: str) -> None:
    assert grade({"flops.training_total": answer})["flops.training_total"].verdict == verdict


# ------------------------------------------------------------------ the named slips, both ways


def test_master_weights_forgotten_both_ways() -> None:
    rs = grade({"memory.training": 12 * PSI, "memory.per_device": 2 * PSI + 10 * PSI // 64})
    assert rs["memory.training"].verdict == "wrong" and rs["memory.training"].mistake == "master_forgotten"
    assert "master copy" in rs["memory.training"].note
    assert rs["memory.per_device"].mistake == "master_forgotten"  # charged once: carried here
    r = grade({"memory.training": 12 * PSI + 1_000})["memory.training"]
    assert r.verdict == "wrong" and r.mistake is None
    r = grade({"memory.training": "770.9 GiB"})["memory.training"]  # 12Ψ = 827,719,778,304 = 770.87 GiB
    assert r.mistake == "master_forgotten", r.note


@pytest.mark.parametrize(("stage", "value"), [(3, 16 * PSI // 64), (1, 4 * PSI + 12 * PSI // 64), (0, 16 * PSI)])
def test_another_zero_stage_is_named_with_both_stages(stage: int, value: int) -> None:
    r = grade({"memory.per_device": value})["memory.per_device"]
    assert r.verdict == "wrong" and r.mistake == "zero_stage_confused", r.note
    assert f"ZeRO stage {stage}" in r.note and "asks for stage 2" in r.note
    r = grade({"memory.per_device": value + 64})["memory.per_device"]
    assert r.mistake is None, r.note


def test_gib_for_gb_both_ways() -> None:
    # 153.042 GB written as GiB, and 142.531 GiB written as GB
    for answer, other in (
        ("153.0 GiB", "GB (10^9 bytes) was written as GiB"),
        ("142.5 GB", "GiB (2^30 bytes) was written as GB"),
    ):
        r = grade({"memory.per_device": answer})["memory.per_device"]
        assert r.verdict == "wrong" and r.mistake == "gib_for_gb", (answer, r.note)
        assert other in r.note
    # the other prefixes: 1,103,626 MB (16Ψ = 1,103,626,371,072 bytes) written as MiB; 1.0 TiB written as TB
    r = grade({"memory.training": "1,103,626 MiB"})["memory.training"]
    assert r.mistake == "gib_for_gb" and "MB (10^6 bytes) was written as MiB (2^20 bytes)" in r.note
    r = grade({"memory.training": "1,052,500 MB"})["memory.training"]  # 16Ψ / 2^20 = 1,052,500.125
    assert r.mistake == "gib_for_gb" and "MiB (2^20 bytes) was written as MB (10^6 bytes)" in r.note
    for typo in ("155.0 GiB", "144.5 GB"):
        r = grade({"memory.per_device": typo})["memory.per_device"]
        assert r.verdict == "wrong" and r.mistake is None, (typo, r.note)


def test_gib_for_gb_also_gives_the_size_in_the_unit_written() -> None:
    """A named unit slip still gets the line docs/interface.md shows: 153,041,938,176 bytes (2Ψ + 14Ψ/64)
    is 142.531 GiB (÷ 2^30) and 153.042 GB (÷ 10^9), judged to ±0.05 at one decimal."""
    per_device = 2 * 68_976_648_192 + 14 * 68_976_648_192 // 64
    assert per_device == 153_041_938_176
    gib, gb = Fraction(per_device, 2**30), Fraction(per_device, 10**9)
    assert f"{float(gib):.3f}" == "142.531" and f"{float(gb):.3f}" == "153.042"
    r = grade({"memory.per_device": "153.0 GiB"})["memory.per_device"]
    assert r.mistake == "gib_for_gb"
    assert r.note.endswith("In GiB it is 142.531 (judged to ±0.05 GiB, as written)."), r.note
    r = grade({"memory.per_device": "142.5 GB"})["memory.per_device"]
    assert r.note.endswith("In GB it is 153.042 (judged to ±0.05 GB, as written)."), r.note


def test_the_budget_without_the_backward_pass_both_ways(cli: Any, tmp_path: Path) -> None:
    """2·N·D, the forward pass only (2 FLOPs a parameter a token, the backward's 4 left out): 2 · Ψ ·
    2·10^12 = 275,906,592,768,000,000,000,000, a third of the budget; named from an answers file built
    with it (in full and in e-notation), not for the same number with one digit changed."""
    forward_only = 2 * PSI * 2 * 10**12
    assert forward_only == 275_906_592_768_000_000_000_000 and 3 * forward_only == BUDGET
    saved = tmp_path / "a.toml"
    for answer in ('"275,906,592,768,000,000,000,000"', '"2.759e23"'):
        saved.write_text(f'"flops.training_total" = {answer}\n')
        out = cli("check", str(EXAMPLE), str(saved), "--format", "json")
        (r,) = json.loads(out.stdout)["results"]
        assert (r["verdict"], r.get("mistake")) == ("wrong", "training_forward_only"), (answer, r)
        assert "backward pass was left out" in r["note"]
    for typo in ('"275,906,592,769,000,000,000,000"', '"2.795e23"', '"3.759e23"'):
        saved.write_text(f'"flops.training_total" = {typo}\n')
        out = cli("check", str(EXAMPLE), str(saved), "--format", "json")
        (r,) = json.loads(out.stdout)["results"]
        assert (r["verdict"], r.get("mistake")) == ("wrong", None), (typo, r)


# ------------------------------------------------------------------ the practice page and the gradebook


def test_the_practice_page_judges_units_as_check_does(cli: Any, tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    from ..serve_support import examples_client

    c = examples_client()
    page = html.unescape(c.get("/problems/accounting-llama2-70b").text)
    training = page.split('id="step-27"')[1].split("</section>")[0]  # memory.training, a count of bytes
    assert "memory.training" in training and 'a size with its unit ("142.5 GiB", "153 GB")' in training
    answers = {"answers": {"memory.training": "1,027.8 GiB", "memory.per_device": "153.0 GiB"}}
    got = c.post("/problems/accounting-llama2-70b/check", json=answers)
    assert got.status_code == 200, got.text[:500]
    verdicts = {r["id"]: (r["verdict"], r.get("mistake")) for r in got.json()["results"]}
    assert verdicts == {"memory.training": ("correct", None), "memory.per_device": ("wrong", "gib_for_gb")}
    saved = tmp_path / "a.toml"
    saved.write_text('"memory.training" = "1,027.8 GiB"\n"memory.per_device" = "153.0 GiB"\n')
    out = cli("check", str(EXAMPLE), str(saved), "--format", "json")
    assert {r["id"]: (r["verdict"], r.get("mistake")) for r in json.loads(out.stdout)["results"]} == verdicts


def test_the_gradebook_counts_an_answer_with_a_unit(cli: Any, tmp_path: Path) -> None:
    shutil.copy(EXAMPLE, tmp_path / "p.toml")
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "ann.toml").write_text('student = "ann"\nproblem = "../p.toml"\n"memory.training" = "1,027.8 GiB"\n')
    (subs / "bob.toml").write_text('student = "bob"\nproblem = "../p.toml"\n"memory.training" = "1,027.8 GB"\n')
    files = [str(subs / "ann.toml"), str(subs / "bob.toml")]
    result = cli("check", "--problems", str(tmp_path), *files, "-f", "csv")
    assert result.exit_code in (0, 1), result.output
    lines = [line.lstrip("\ufeff").split(",") for line in result.stdout.splitlines()]
    head = lines[0]
    rows = {r[head.index("student")]: r for r in lines[1:]}
    at = head.index("memory.training")
    assert (rows["ann"][at], rows["ann"][head.index("score")]) == ("correct", "1")
    assert (rows["bob"][at], rows["bob"][head.index("score")]) == ("wrong", "0")  # 1,027.8 GB is 957.2 GiB
    canvas = cli("check", "--problems", str(tmp_path), *files, "-f", "csv", "--gradebook", "canvas")
    assert "\nann,,ann,ann,,1" in canvas.stdout.replace("\r\n", "\n")


# ------------------------------------------------------------------ homework


def test_homework_draws_the_training_run_and_a_quiz_asks_every_variant_the_same() -> None:
    from attncalc.homework.generate import Options, generate

    drawn: set[str] = set()
    for seed in (1, 2, 3):
        for raw in generate(Options(kind="accounting", count=6, seed=seed)).problems:
            g = raw["given"]
            drawn |= {k for k in ("training_tokens", "mixed_precision", "devices", "zero") if k in g}
            assert not g.get("mixed_precision") or g["dtype"] != "fp32"
            assert ("zero" in g) == ("devices" in g)
    assert drawn == {"training_tokens", "mixed_precision", "devices", "zero"}
    # a quiz: which keys appear comes from the seed (seed mod 4), the same in every variant
    for seed, keys in ((4, set()), (5, {"training_tokens"}), (3, {"training_tokens", "mixed_precision", "devices"})):
        result = generate(Options(kind="accounting", count=4, seed=seed, one_shape=True))
        for raw, d in zip(result.problems, result.derivations, strict=True):
            g = raw["given"]
            assert {k for k in ("training_tokens", "mixed_precision", "devices") if k in g} == keys
            assert ("memory.per_device" in d.step_ids) == ("devices" in keys)


def test_a_note_from_a_size_in_a_unit_writes_every_digit_grouped() -> None:
    """LLaMA-2-70B (problems/accounting-llama2-70b.toml): the master copy answered 256.96 GiB is
    256.96 · 2^30 = 275,908,699,095.04 bytes, not whole; a wrong total written out from it adds the true
    parameters and gradients (137,953,296,384 each) and optimizer state (551,813,185,536):
    1,103,628,477,399.04, grouped like the counts beside it, never 2.75909e+11 or 1.104e+12."""
    master = Fraction("256.96") * 2**30
    assert master == Fraction("275908699095.04")
    total = 2 * 137_953_296_384 + master + 551_813_185_536
    assert total == Fraction("1103628477399.04")
    problem = load_problem(PROBLEMS / "accounting-llama2-70b.toml")
    answers = {"memory.master": "256.96 GiB", "memory.training": 827_719_778_304}
    r = {x.id: x for x in check(problem, answers, "a.toml").results}["memory.training"]
    note = " ".join(r.note.split())
    assert "275,908,699,095.04" in note and "= 1,103,628,477,399.04, not 827,719,778,304" in note, note
    assert "e+" not in note
