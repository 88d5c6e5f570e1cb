"""Kind softmax: logits given or computed by an output layer, the target, the labels.

The declaration (:mod:`attncalc.schema.feedforward`) reads the keys, their types and the shapes it
names (W_out has V rows, b_out V entries). The rules here are the ones it cannot say: the logits or
W_out with hidden (one of the two; b_out only with W_out), W_out as wide as hidden, one label per
logit, a target that is a label or an index in range, hidden beside the logits only for a gradient
(with a target), and what [training] and [settings] label_smoothing need.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..numbers import Node, to_float
from ..schema.common import LABEL_SMOOTHING
from ..schema.decl import table
from ..schema.feedforward import SOFTMAX_GIVEN
from ..schema.validate import suggest
from .declared import read_declared
from .output import training
from .reader import Reader
from .types import Given, Problem, Training

_SMOOTHING = table(LABEL_SMOOTHING)  # kind softmax's own settings key

# ------------------------------------------------------------------ the payload (Problem.data)


@dataclass(frozen=True)
class OutputLogits:
    """Logits computed by an output layer: z = W_out h + b_out."""

    W_out: Given  # V × d, one row per vocabulary entry
    b_out: Given | None  # V
    hidden: Given  # h, d


@dataclass(frozen=True)
class Target:
    """A softmax with a target: the loss and its gradient, and what follows from them."""

    index: int  # 0-based
    label_smoothing: Node | None  # ε (PyTorch's CrossEntropyLoss convention), or None: a one-hot target
    training: Training | None  # one step on W_out (and b_out); the file gives hidden


@dataclass(frozen=True)
class Softmax:
    """Kind softmax: the logits (given, or an output layer's), their labels, the optional target."""

    logits: Given | OutputLogits
    hidden: Given | None  # h: the output layer's input, or given beside the logits for ∂L/∂W_out (with a target)
    vocab: tuple[str, ...] | None
    target: Target | None

    @property
    def layer(self) -> OutputLogits | None:
        return self.logits if isinstance(self.logits, OutputLogits) else None


# ------------------------------------------------------------------ the parser


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind softmax, past the top level: the logits, then the optional [training] step."""
    t = raw["given"]
    _sources(r, t)
    g = read_declared(r, t, SOFTMAX_GIVEN, "given")
    logits = _logits(r, g)
    V = logits.shape[0] if isinstance(logits, Given) else logits.W_out.shape[0]
    vocab = _vocab(r, g["vocab"], common["tokens"], V, "there are" if isinstance(logits, Given) else "W_out gives")
    index = _target(r, g["target"], vocab, V)
    hidden: Given | None = g["hidden"]
    if hidden is not None and isinstance(logits, Given) and index is None:
        raise r.fail("given.hidden", "is used for the gradient with respect to W_out, which needs given.target")
    train = _training(r, raw, hidden is not None, index is not None, isinstance(logits, OutputLogits))
    smoothing = label_smoothing(r, raw.get("settings"), index)
    target = None if index is None else Target(index, smoothing, train)
    d = Softmax(logits, hidden, vocab, target)
    given = {k: g[k] for k in ("logits", "hidden", "W_out", "b_out") if g[k] is not None}
    return Problem(given=given, data=d, **common)


def _sources(r: Reader, t: dict[str, Any]) -> None:
    """The logits, or W_out with hidden (and b_out): one of the two."""
    if t.get("W_out") is not None:
        if t.get("logits") is not None:
            raise r.fail(
                "given.logits", "give either the logits or W_out with hidden (the logits are then W_out·hidden + b_out)"
            )
        if t.get("hidden") is None:
            raise r.fail("given.hidden", "missing: the vector W_out multiplies (the logits are W_out·hidden)")
        return
    if t.get("b_out") is not None:
        raise r.fail("given.b_out", "needs given.W_out and given.hidden (the logits are W_out·hidden + b_out)")
    if t.get("logits") is None:
        raise r.fail("given.logits", "missing: the logits z (or W_out and hidden, to compute them)")


def _logits(r: Reader, g: dict[str, Any]) -> Given | OutputLogits:
    """The given logits, or the output layer whose rows are as wide as hidden."""
    if g["W_out"] is None:
        logits: Given = g["logits"]
        return logits
    W_out: Given = g["W_out"]
    hidden: Given = g["hidden"]
    if W_out.shape[1] != hidden.shape[0]:
        raise r.fail(
            "given.W_out",
            f"has rows of width {W_out.shape[1]}, but given.hidden has length {hidden.shape[0]}: "
            "one row per vocabulary entry, as wide as hidden",
        )
    return OutputLogits(W_out, g["b_out"], hidden)


def _vocab(
    r: Reader, vocab: tuple[str, ...] | None, tokens: tuple[str, ...] | None, V: int, what: str
) -> tuple[str, ...] | None:
    """given.vocab (else the tokens): one label per logit."""
    labels = vocab if vocab is not None else tokens
    if labels is not None and len(labels) != V:
        raise r.fail("given.vocab", f"has {len(labels)} labels but {what} {V} logits")
    return labels


def _target(r: Reader, raw: str | int | None, vocab: tuple[str, ...] | None, V: int) -> int | None:
    """A 0-based index below V, or a vocabulary label; None when there is no target."""
    if raw is None:
        return None
    if isinstance(raw, int):
        if not 0 <= raw < V:
            raise r.fail(
                "given.target",
                f"index {raw} is out of range: with {V} logits it runs from 0 to {V - 1} (0-based, as in PyTorch)",
            )
        return raw
    if vocab is None or raw not in vocab:
        labels = f"; labels: {', '.join(vocab)}" if vocab else "; give given.vocab to use labels"
        raise r.fail("given.target", f"{raw!r} is not a vocabulary label{suggest(raw, vocab or ())}{labels}")
    return vocab.index(raw)


def _training(r: Reader, raw: dict[str, Any], hidden: bool, target: bool, layer: bool) -> Training | None:
    """[training]: one step on W_out, which needs hidden (and W_out itself for AdamW's decay)."""
    if "training" not in raw:
        return None
    if not hidden:
        raise r.fail("training", "a training step updates W_out: give given.hidden (and given.W_out to see W_out')")
    train = training(r, raw["training"], target)
    if train is not None and train.optimizer == "adamw" and not layer:
        raise r.fail("training.optimizer", "adamw decays W_out itself: give given.W_out (and given.hidden)")
    return train


def label_smoothing(r: Reader, settings: Any, target: int | None) -> Node | None:
    """``[settings] label_smoothing`` (0 ≤ ε ≤ 1, as CrossEntropyLoss), which needs a target; or None."""
    eps: Node | None = read_declared(r, settings, _SMOOTHING, "settings", only=("label_smoothing",))["label_smoothing"]
    if eps is None:
        return None
    if not 0 <= to_float(eps) <= 1:
        raise r.fail(
            "settings.label_smoothing", "must be from 0 to 1 (ε, the share of the target spread over every class)"
        )
    if target is None:
        raise r.fail("settings.label_smoothing", "smooths the target: give given.target")
    return eps
