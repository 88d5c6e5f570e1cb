"""Kind softmax: logits given or computed by an output layer, the target, the labels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..numbers import to_float
from ..schema.validate import suggest
from .output import training
from .reader import Reader, describe_raw, require
from .types import Given, Problem


def read(
    r: Reader, t: dict[str, Any], tokens: tuple[str, ...] | None
) -> tuple[dict[str, Given], int | None, tuple[str, ...] | None]:
    """Logits given, or computed by an output layer from a hidden state: z = W_out h + b_out."""
    given: dict[str, Given] = {}
    if "W_out" in t:
        if "logits" in t:
            raise r.fail(
                "given.logits", "give either the logits or W_out with hidden (the logits are then W_out·hidden + b_out)"
            )
        hidden = r.vector(
            require(r, t, "hidden", "the vector W_out multiplies (the logits are W_out·hidden)"), "given.hidden"
        )
        W_out = r.matrix(t["W_out"], "given.W_out")
        if W_out.shape[1] != hidden.shape[0]:
            raise r.fail(
                "given.W_out",
                f"has rows of width {W_out.shape[1]}, but given.hidden has length {hidden.shape[0]}: "
                "one row per vocabulary entry, as wide as hidden",
            )
        V = W_out.shape[0]
        given.update(hidden=hidden, W_out=W_out)
        if "b_out" in t:
            b_out = r.vector(t["b_out"], "given.b_out")
            if b_out.shape[0] != V:
                raise r.fail("given.b_out", f"has length {b_out.shape[0]} but W_out gives {V} logits")
            given["b_out"] = b_out
        what = "W_out gives"
    else:
        if "b_out" in t:
            raise r.fail("given.b_out", "needs given.W_out and given.hidden (the logits are W_out·hidden + b_out)")
        logits = r.vector(
            require(r, t, "logits", "the logits z (or W_out and hidden, to compute them)"), "given.logits"
        )
        given["logits"] = logits
        V = logits.shape[0]
        if "hidden" in t:
            given["hidden"] = r.vector(t["hidden"], "given.hidden")
        what = "there are"
    vocab = r.labels(t["vocab"], "given.vocab") if "vocab" in t else tokens
    if vocab is not None and len(vocab) != V:
        raise r.fail("given.vocab", f"has {len(vocab)} labels but {what} {V} logits")
    target = None
    if "target" in t:
        raw = t["target"]
        if isinstance(raw, int) and not isinstance(raw, bool):
            if not 0 <= raw < V:
                raise r.fail(
                    "given.target",
                    f"index {raw} is out of range: with {V} logits it runs from 0 to {V - 1} (0-based, as in PyTorch)",
                )
            target = raw
        elif isinstance(raw, str):
            if vocab is None or raw not in vocab:
                labels = f"; labels: {', '.join(vocab)}" if vocab else "; give given.vocab to use labels"
                raise r.fail("given.target", f"{raw!r} is not a vocabulary label{suggest(raw, vocab or ())}{labels}")
            target = vocab.index(raw)
        else:
            raise r.fail("given.target", f"expected a 0-based index or a vocabulary label, got {describe_raw(raw)}")
    if "hidden" in given and "W_out" not in given and target is None:
        raise r.fail("given.hidden", "is used for the gradient with respect to W_out, which needs given.target")
    return given, target, vocab


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind softmax, past the top level: the logits, then the optional [training] step."""
    given, target, vocab = read(r, raw["given"], common["tokens"])
    train = None
    if "training" in raw:
        if "hidden" not in given:
            raise r.fail("training", "a training step updates W_out: give given.hidden (and given.W_out to see W_out')")
        train = training(r, raw["training"], target is not None)
        if train is not None and train.optimizer == "adamw" and "W_out" not in given:
            raise r.fail("training.optimizer", "adamw decays W_out itself: give given.W_out (and given.hidden)")
    smoothing = label_smoothing(r, raw.get("settings"), target)
    data = SoftmaxData(smoothing) if smoothing is not None else None
    return Problem(given=given, head=None, target=target, vocab=vocab, training=train, data=data, **common)


@dataclass(frozen=True)
class SoftmaxData:
    """Kind softmax's own settings: label smoothing ε (a number tree), PyTorch's convention."""

    label_smoothing: Any


def label_smoothing(r: Reader, settings: Any, target: int | None) -> Any:
    """``[settings] label_smoothing`` (0 ≤ ε ≤ 1, as CrossEntropyLoss), which needs a target; or None."""
    if not isinstance(settings, dict) or settings.get("label_smoothing") is None:
        return None
    eps = r.number(settings["label_smoothing"], "settings.label_smoothing")
    if not 0 <= to_float(eps) <= 1:
        raise r.fail(
            "settings.label_smoothing", "must be from 0 to 1 (ε, the share of the target spread over every class)"
        )
    if target is None:
        raise r.fail("settings.label_smoothing", "smooths the target: give given.target")
    return eps
