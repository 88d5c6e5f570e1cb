"""The output layer of the recurrent kinds and the seq2seq decoder, and the [training] table (softmax too)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..numbers import parse_number, to_float
from ..schema import common as decl
from ..schema.validate import names
from .declared import read_declared
from .reader import Reader
from .types import OutputLayer, Training

TRAINING_KEYS = names(decl.TRAINING_TABLE)


def _targets(r: Reader, raw: Any, key: str, vocab: tuple[str, ...] | None, V: int, T: int) -> tuple[int, ...]:
    """One target per step, each a vocabulary label or a 0-based index."""
    if not isinstance(raw, list) or not raw:
        raise r.fail(key, "expected a list of target tokens, one per step (labels or 0-based indices)")
    if len(raw) != T:
        raise r.fail(
            key, f"has {len(raw)} targets but there {'is 1 step' if T == 1 else f'are {T} steps'}: one target per step"
        )
    return tuple(_target(r, item, key, k, vocab, V) for k, item in enumerate(raw, 1))


def _target(r: Reader, item: Any, key: str, k: int, vocab: tuple[str, ...] | None, V: int) -> int:
    if isinstance(item, int) and not isinstance(item, bool):
        if not 0 <= item < V:
            raise r.fail(key, f"entry {k}: index {item} is out of range 0..{V - 1} (0-based, as in PyTorch)")
        return item
    if not isinstance(item, str):
        raise r.fail(key, f"entry {k}: expected a label or an index")
    if vocab is None or item not in vocab:
        raise r.fail(key, f"entry {k}: {item!r} is not in the vocabulary" + ("" if vocab else " (give vocab)"))
    return vocab.index(item)


def output_layer(r: Reader, t: dict[str, Any], prefix: str, width: int, T: int, required: bool) -> OutputLayer | None:
    """W_out (rows as wide as the vector it multiplies), b_out, vocab and targets; None when there is none."""
    if "W_out" not in t:
        _no_output_layer(r, t, prefix, required)
        return None
    W_out = r.matrix(t["W_out"], f"{prefix}W_out")
    if W_out.shape[1] != width:
        raise r.fail(
            f"{prefix}W_out", f"has rows of width {W_out.shape[1]}, but the vector it multiplies has length {width}"
        )
    V = W_out.shape[0]
    b_out = r.vector(t["b_out"], f"{prefix}b_out") if "b_out" in t else None
    if b_out is not None and b_out.shape[0] != V:
        raise r.fail(f"{prefix}b_out", f"has length {b_out.shape[0]} but W_out gives {V} logits")
    vocab = r.labels(t["vocab"], f"{prefix}vocab") if "vocab" in t else None
    if vocab is not None and len(vocab) != V:
        raise r.fail(f"{prefix}vocab", f"has {len(vocab)} labels but W_out gives {V} logits")
    targets = _targets(r, t["targets"], f"{prefix}targets", vocab, V, T) if "targets" in t else None
    return OutputLayer(W_out, b_out, vocab, targets)


def _no_output_layer(r: Reader, t: dict[str, Any], prefix: str, required: bool) -> None:
    """Without W_out the other output keys are refused, and a required layer is missing."""
    for k in ("b_out", "vocab", "targets"):
        if k in t:
            raise r.fail(f"{prefix}{k}", f"needs {prefix}W_out, the output layer's weights")
    if required:
        raise r.fail(f"{prefix}W_out", "missing: the output layer's weights (one row per vocabulary entry)")


# [training]: the keys that belong to some optimizers only, and each key's bound (the value that is refused)
_ONLY = {
    "beta1": (("adam", "adamw"), "belongs to optimizers 'adam' and 'adamw'"),
    "beta2": (("adam", "adamw"), "belongs to optimizers 'adam' and 'adamw'"),
    "eps": (("adam", "adamw"), "belongs to optimizers 'adam' and 'adamw'"),
    "weight_decay": (("adamw",), "belongs to optimizer 'adamw' (decoupled weight decay)"),
}
_BOUNDS: tuple[tuple[str, Callable[[float], bool], str], ...] = (
    ("lr", lambda v: not v > 0, "must be greater than 0"),
    ("beta1", lambda v: not 0 <= v < 1, "must be at least 0 and below 1"),
    ("beta2", lambda v: not 0 <= v < 1, "must be at least 0 and below 1"),
    ("eps", lambda v: v < 0, "must not be negative"),
    ("weight_decay", lambda v: not v >= 0, "must not be negative"),
    ("clip_norm", lambda v: not v > 0, "must be greater than 0"),
)


def training(r: Reader, raw: Any, has_targets: bool) -> Training | None:
    """The [training] table, read with its declaration: one step of SGD, Adam or AdamW on the output layer."""
    if raw is None:
        return None
    r.table(raw, "training", TRAINING_KEYS)
    if not has_targets:
        raise r.fail("training", "a training step needs targets (and an output layer) to compute a gradient")
    t = read_declared(r, raw, decl.TRAINING_TABLE, "training")
    opt: str = t["optimizer"]
    if t["lr"] is None:
        t["lr"] = parse_number("0.1" if opt == "sgd" else "0.001")
    if opt != "adamw":
        t["weight_decay"] = None  # AdamW's λ (its default 0.01 is AdamW's)
    for key, bad, message in _BOUNDS:
        _training_key(r, key, t[key], opt, key in raw, bad, message)
    return Training(opt, t["lr"], t["beta1"], t["beta2"], t["eps"], t["weight_decay"], t["clip_norm"])


def _training_key(
    r: Reader, key: str, value: Any, opt: str, written: bool, bad: Callable[[float], bool], message: str
) -> None:
    """A key the optimizer does not take is refused when the file writes it; a value out of bounds is."""
    optimizers, belongs = _ONLY.get(key, (None, ""))
    if written and optimizers is not None and opt not in optimizers:
        raise r.fail(f"training.{key}", belongs)
    if value is not None and bad(to_float(value)):
        raise r.fail(f"training.{key}", message)
