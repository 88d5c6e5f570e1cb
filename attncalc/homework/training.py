"""The training options of `attncalc generate` (issue 30): --optimizer, --clip-norm and
--label-smoothing for the kinds with [training] (softmax, and rnn, lstm, gru with --head, seq2seq),
and --schedule for lr-schedule."""

from __future__ import annotations

from typing import Any

from .base import choose, refuse
from .options import Options

OPTIMIZERS = ("sgd", "adam", "adamw")
TRAINING_OPTIONS = {"optimizer", "clip_norm"}


def check_training(o: Options, applies: bool, where: str) -> None:
    """--optimizer and --clip-norm in range, and only where a training step can be drawn."""
    if o.optimizer is None and o.clip_norm is None:
        return
    if not applies:
        option = "--optimizer" if o.optimizer is not None else "--clip-norm"
        raise refuse(option, f"{option} needs an output layer with targets: {where}")
    if o.optimizer is not None:
        choose(o, "optimizer", o.optimizer, OPTIMIZERS)
    if o.clip_norm is not None and not o.clip_norm > 0:
        raise refuse("--clip-norm", "must be greater than 0")


def training_table(o: Options) -> dict[str, Any] | None:
    """The drawn problem's [training] table (None without --optimizer and --clip-norm). AdamW decays by
    λ = 0.1 at lr 0.1, so that the decay shows at 3 decimals."""
    if o.optimizer is None and o.clip_norm is None:
        return None
    optimizer = o.optimizer or "sgd"
    table: dict[str, Any] = {"optimizer": optimizer, "lr": 0.1 if optimizer != "adam" else 0.01}
    if optimizer == "adamw":
        table["weight_decay"] = 0.1
    if o.clip_norm is not None:
        table["clip_norm"] = o.clip_norm
    return table


def check_smoothing(o: Options) -> None:
    if o.label_smoothing is None:
        return
    if o.kind != "softmax":
        raise refuse("--label-smoothing", "--label-smoothing applies to softmax")
    if not 0 <= o.label_smoothing <= 1:
        raise refuse("--label-smoothing", "choose ε from 0 to 1")
