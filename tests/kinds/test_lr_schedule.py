"""Kind lr-schedule (noam, cosine with linear warmup, linear).

Oracles: the formulas written here from the papers (Vaswani et al. 2017, §5.3; the CS336 / LLaMA
cosine recipe), the `transformers` warmup schedules written from their documentation
(get_cosine_schedule_with_warmup, get_linear_schedule_with_warmup) and run through
torch.optim.lr_scheduler.LambdaLR, a value by hand (512^(−0.5) · 4000^(−0.5) = 1/√2048000 ≈
0.000698771), and sympy's exact values.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
import sympy as sp

from attncalc.errors import ProblemError
from attncalc.parse import parse_problem

from ..helpers import PROBLEMS, solve_file, solve_raw

TOL = 1e-12


def noam(t: int, d_model: int, warmup: int, factor: float = 1.0) -> float:
    """Vaswani et al. 2017, eq. (3): lrate = d_model^−0.5 · min(step_num^−0.5, step_num · warmup_steps^−1.5)."""
    return factor * d_model**-0.5 * min(t**-0.5, t * warmup**-1.5)


def cosine(t: int, lr_max: float, lr_min: float, warmup: int, total: int) -> float:
    """CS336 assignment 1, learning-rate schedule: warmup, cosine annealing, post-annealing."""
    if t < warmup:
        return t / warmup * lr_max
    if t <= total:
        return lr_min + 0.5 * (1 + math.cos((t - warmup) / (total - warmup) * math.pi)) * (lr_max - lr_min)
    return lr_min


def linear(t: int, lr_max: float, lr_min: float, warmup: int, total: int) -> float:
    if t < warmup:
        return t / warmup * lr_max
    if t <= total:
        return lr_max - (lr_max - lr_min) * (t - warmup) / (total - warmup)
    return lr_min


def lr(d: Any) -> np.ndarray:
    return np.asarray(d.step("lr").value, dtype=float)


def test_the_paper_schedule_and_its_peak_by_hand() -> None:
    """problems/noam-schedule.toml: d_model 512, warmup 4000; the peak 1/√(512 · 4000) ≈ 0.000698771."""
    d = solve_file("noam-schedule.toml")
    steps = [1, 100, 1000, 4000, 10000, 100000]
    assert np.allclose(lr(d), [noam(t, 512, 4000) for t in steps], atol=TOL, rtol=0)
    assert abs(float(d["lr"][3]) - 0.000698771) < 5e-10  # by hand: 1/√2048000 = 0.00069877124...
    assert float(d["peak_step"]) == 4000
    assert abs(float(d["peak_lr"]) - 1 / math.sqrt(2048000)) < TOL
    assert sp.simplify(d.step("peak_lr").exact.item() - 1 / sp.sqrt(2048000)) == 0
    assert sp.simplify(d.step("lr").exact[0] - sp.Rational(1, 4000) ** sp.Rational(3, 2) / sp.sqrt(512)) == 0


def _lambda_lr(fn: Any, steps: list[int]) -> list[float]:
    """The rate torch's LambdaLR gives after t scheduler steps (base lr 1: the rate is fn(t))."""
    torch = pytest.importorskip("torch", reason="PyTorch is an oracle for this test (pip install torch==2.13.0)")
    p = torch.nn.Parameter(torch.zeros(1, dtype=torch.float64))
    opt = torch.optim.SGD([p], lr=1.0)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=fn)
    out, at = [], 0
    for t in sorted(steps):
        while at < t:
            opt.step()
            sched.step()
            at += 1
        out.append(sched.get_last_lr()[0])
    order = sorted(range(len(steps)), key=lambda k: steps[k])
    back = [0.0] * len(steps)
    for k, v in zip(order, out, strict=True):
        back[k] = v
    return back


@pytest.mark.parametrize("factor", [1, 2])
def test_noam_matches_lambda_lr_as_the_annotated_transformer_runs_it(factor: int) -> None:
    """The Annotated Transformer's rate(step, model_size, factor, warmup) in LambdaLR (step 0 read as 1)."""
    steps = [1, 2, 7, 10, 15, 40]
    d = solve_raw(
        {
            "kind": "lr-schedule",
            "schedule": "noam",
            "given": {"steps": steps, "d_model": 16, "warmup": 10, "factor": factor},
        }
    )

    def rate(step: int) -> float:
        step = 1 if step == 0 else step
        return factor * (16**-0.5 * min(step**-0.5, step * 10**-1.5))

    assert np.allclose(lr(d), _lambda_lr(rate, steps), atol=TOL, rtol=0)
    assert abs(float(d["peak_lr"]) - factor * 16**-0.5 * 10**-0.5) < TOL


@pytest.mark.parametrize("exact", [True, False])
def test_cosine_matches_cs336_and_the_transformers_schedule(exact: bool) -> None:
    steps = [0, 3, 10, 11, 25, 40, 55, 70, 90]
    given = {"steps": steps, "lr_max": 1, "warmup": 10, "total": 70}
    d = solve_raw({"kind": "lr-schedule", "schedule": "cosine", "given": given}, exact=exact)
    assert np.allclose(lr(d), [cosine(t, 1, 0, 10, 70) for t in steps], atol=TOL, rtol=0)

    def hf_cosine(step: int) -> float:  # transformers' get_cosine_schedule_with_warmup, num_cycles = 0.5
        if step < 10:
            return step / max(1, 10)
        progress = (step - 10) / max(1, 70 - 10)
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * 0.5 * 2.0 * progress)))

    within = [t for t in steps if t <= 70]  # past total transformers' cosine climbs again; attncalc stays at lr_min
    assert np.allclose(lr(d)[: len(within)], _lambda_lr(hf_cosine, within), atol=TOL, rtol=0)


def test_the_cosine_example_with_a_floor_and_its_exact_values() -> None:
    d = solve_file("cosine-schedule.toml")
    steps = [0, 50, 100, 325, 550, 775, 1000, 1200]
    assert np.allclose(lr(d), [cosine(t, 0.001, 0.0001, 100, 1000) for t in steps], atol=TOL, rtol=0)
    # t = 325: a quarter of the way, cos(π/4) = √2/2: 0.0001 + ½(1 + √2/2)·0.0009
    want = sp.Rational(1, 10000) + sp.Rational(1, 2) * (1 + sp.sqrt(2) / 2) * sp.Rational(9, 10000)
    assert sp.simplify(sp.nsimplify(d.step("lr").exact[3]) - want) == 0
    assert float(d["peak_step"]) == 100 and float(d["peak_lr"]) == 0.001


def test_linear_matches_the_transformers_linear_schedule() -> None:
    steps = [0, 2, 5, 6, 12, 20, 30]
    d = solve_raw(
        {
            "kind": "lr-schedule",
            "schedule": "linear",
            "given": {"steps": steps, "lr_max": 0.5, "warmup": 5, "total": 20},
        }
    )
    assert np.allclose(lr(d), [linear(t, 0.5, 0, 5, 20) for t in steps], atol=TOL, rtol=0)

    def hf_linear(step: int) -> float:  # get_linear_schedule_with_warmup
        if step < 5:
            return step / max(1, 5)
        return max(0.0, (20 - step) / max(1, 20 - 5))

    assert np.allclose(lr(d), 0.5 * np.asarray(_lambda_lr(hf_linear, steps)), atol=TOL, rtol=0)
    floor = solve_raw(
        {
            "kind": "lr-schedule",
            "schedule": "linear",
            "given": {"steps": steps, "lr_max": 0.5, "lr_min": 0.1, "warmup": 5, "total": 20},
        }
    )
    assert np.allclose(lr(floor), [linear(t, 0.5, 0.1, 5, 20) for t in steps], atol=TOL, rtol=0)


@pytest.mark.parametrize("fmt", ["markdown", "latex", "html", "json", "text"])
def test_every_view_shows_the_written_rates(cli: Any, fmt: str) -> None:
    out = cli("solve", str(PROBLEMS / "noam-schedule.toml"), "--format", fmt)
    assert out.exit_code == 0, out.output
    if fmt == "json":
        data = json.loads(out.stdout)
        ids = [s["id"] for s in data["steps"]]
        assert ids == ["lr", "peak_step", "peak_lr"]
    else:
        assert "4000" in out.stdout and "0.0006988" in out.stdout


@pytest.mark.parametrize(
    ("schedule", "given", "key", "message"),
    [
        (
            "noam",
            {"steps": [1], "d_model": 512, "warmup": 10, "lr_max": 1},
            "given.lr_max",
            "belongs to schedule 'cosine'",
        ),
        ("noam", {"steps": [1], "warmup": 10}, "given.d_model", "missing"),
        ("noam", {"steps": [0], "d_model": 8, "warmup": 10}, "given.steps", "t ≥ 1"),
        ("noam", {"steps": [1.5], "d_model": 8, "warmup": 10}, "given.steps", "whole-number"),
        ("noam", {"steps": [1], "d_model": 8, "warmup": 0}, "given.warmup", "at least 1"),
        ("cosine", {"steps": [1], "lr_max": 1, "warmup": 10, "total": 10}, "given.total", "past the warmup"),
        ("cosine", {"steps": [1], "lr_max": 1, "lr_min": 2, "warmup": 1, "total": 10}, "given.lr_min", "lr_max"),
        ("cosine", {"steps": [1], "lr_max": 0, "warmup": 1, "total": 10}, "given.lr_max", "greater than 0"),
        ("linear", {"steps": [1], "lr_max": 1, "warmup": 1, "total": 5, "d_model": 4}, "given.d_model", "'noam'"),
        ("cosine", {"steps": [1], "lr_max": 1, "total": 5}, "given.warmup", "missing"),
        ("cosine", {"steps": [-1], "lr_max": 1, "warmup": 1, "total": 5}, "given.steps", "from 0"),
        ("exponential", {"steps": [1]}, "schedule", "noam"),
    ],
)
def test_bad_schedules_name_the_key(schedule: str, given: dict[str, Any], key: str, message: str) -> None:
    with pytest.raises(ProblemError) as e:
        parse_problem({"kind": "lr-schedule", "schedule": schedule, "given": given}, "bad.toml")
    assert key in str(e.value) and message in str(e.value), str(e.value)
