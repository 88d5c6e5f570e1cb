"""`generate` covers the training options (--optimizer, --clip-norm,
--label-smoothing) and kind lr-schedule (--schedule), seeded, and refuses them where they do not apply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.errors import ProblemError
from attncalc.homework.generate import Options, check_options, generate


def _gen(**kw: Any) -> Any:
    o = Options(**kw)
    check_options(o)
    return generate(o)


@pytest.mark.parametrize("schedule", ["noam", "cosine", "linear"])
def test_lr_schedule_variants_follow_the_schedule_and_the_seed(schedule: str) -> None:
    res = _gen(kind="lr-schedule", schedule=schedule, count=4, seed=7, tokens=5)
    again = _gen(kind="lr-schedule", schedule=schedule, count=4, seed=7, tokens=5)
    assert res.problems == again.problems
    for raw, d in zip(res.problems, res.derivations, strict=True):
        assert raw["schedule"] == schedule
        steps = raw["given"]["steps"]
        assert steps == sorted(set(steps)) and len(steps) >= 2
        assert raw["given"]["warmup"] in steps  # the peak is asked for
        assert float(d["peak_step"]) == raw["given"]["warmup"]
        assert raw["settings"]["decimals"] >= 6
        assert np.all(np.asarray(d["lr"]) >= 0)


def test_lr_schedule_draws_every_schedule_without_the_option() -> None:
    res = _gen(kind="lr-schedule", count=12, seed=1)
    assert {raw["schedule"] for raw in res.problems} == {"noam", "cosine", "linear"}


def test_softmax_with_adamw_clipping_and_label_smoothing() -> None:
    res = _gen(kind="softmax", optimizer="adamw", clip_norm=0.5, label_smoothing=0.1, count=8, seed=3)
    for raw, d in zip(res.problems, res.derivations, strict=True):
        assert raw["training"] == {"optimizer": "adamw", "lr": 0.1, "weight_decay": 0.1, "clip_norm": 0.5}
        assert raw["settings"]["label_smoothing"] == 0.1
        assert "logits" not in raw["given"] and "W_out" in raw["given"]
        assert all(any(x != 0 for x in row) for row in raw["given"]["W_out"])  # no label's logit fixed at 0
        for step in ("smoothed_target", "grad_norm", "clip_scale", "grad_W_out_clipped", "decay", "W_out_new"):
            assert step in d, step


@pytest.mark.parametrize(("kind", "extra"), [("lstm", {"head": True}), ("gru", {"head": True}), ("seq2seq", {})])
def test_recurrent_kinds_with_a_training_step(kind: str, extra: dict[str, Any]) -> None:
    res = _gen(kind=kind, optimizer="adam", clip_norm=1.0, count=1, seed=2, **extra)
    raw, d = res.problems[0], res.derivations[0]
    assert raw["training"]["optimizer"] == "adam" and raw["training"]["clip_norm"] == 1.0
    assert "grad_norm" in d and "W_out_new" in d


@pytest.mark.parametrize(
    ("kw", "option"),
    [
        ({"kind": "lstm", "optimizer": "adam"}, "--optimizer"),  # no --head: no targets to train on
        ({"kind": "attention", "optimizer": "sgd"}, "--optimizer"),
        ({"kind": "softmax", "optimizer": "lion"}, "--optimizer"),
        ({"kind": "softmax", "clip_norm": 0.0}, "--clip-norm"),
        ({"kind": "lstm", "head": True, "label_smoothing": 0.1}, "--label-smoothing"),
        ({"kind": "softmax", "label_smoothing": 1.5}, "--label-smoothing"),
        ({"kind": "softmax", "schedule": "noam"}, "--schedule"),
        ({"kind": "lr-schedule", "schedule": "exponential"}, "--schedule"),
        ({"kind": "lr-schedule", "optimizer": "sgd"}, "--optimizer"),
    ],
)
def test_options_that_do_not_apply_are_refused_by_name(kw: dict[str, Any], option: str) -> None:
    with pytest.raises(ProblemError) as e:
        check_options(Options(**kw))
    assert option in str(e.value)


def test_the_cli_writes_lr_schedule_homework(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "hw"
    r = cli("generate", "--out", str(out), "--kind", "lr-schedule", "--schedule", "cosine", "--count", "2")
    assert r.exit_code == 0, r.output
    text = (out / "variant-01.toml").read_text()
    assert 'schedule = "cosine"' in text
    r = cli("generate", "--out", str(tmp_path / "x"), "--kind", "softmax", "--schedule", "noam")
    assert r.exit_code == 2 and "--schedule" in r.output
