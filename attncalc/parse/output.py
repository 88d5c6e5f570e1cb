"""The output layer of the recurrent kinds and the seq2seq decoder, and the [training] table (softmax too)."""

from __future__ import annotations

from typing import Any

from ..numbers import parse_number, to_float
from ..schema import common as decl
from ..schema.validate import names
from .reader import Reader
from .types import OutputLayer, Training

TRAINING_KEYS = names(decl.TRAINING_TABLE)


def _targets(r: Reader, raw: Any, key: str, vocab: tuple[str, ...] | None, V: int, T: int) -> tuple[int, ...]:
    if not isinstance(raw, list) or not raw:
        raise r.fail(key, "expected a list of target tokens, one per step (labels or 0-based indices)")
    if len(raw) != T:
        raise r.fail(
            key, f"has {len(raw)} targets but there {'is 1 step' if T == 1 else f'are {T} steps'}: one target per step"
        )
    out = []
    for k, item in enumerate(raw, 1):
        if isinstance(item, int) and not isinstance(item, bool):
            if not 0 <= item < V:
                raise r.fail(key, f"entry {k}: index {item} is out of range 0..{V - 1} (0-based, as in PyTorch)")
            out.append(item)
        elif isinstance(item, str):
            if vocab is None or item not in vocab:
                raise r.fail(key, f"entry {k}: {item!r} is not in the vocabulary" + ("" if vocab else " (give vocab)"))
            out.append(vocab.index(item))
        else:
            raise r.fail(key, f"entry {k}: expected a label or an index")
    return tuple(out)


def output_layer(r: Reader, t: dict[str, Any], prefix: str, width: int, T: int, required: bool) -> OutputLayer | None:
    if "W_out" not in t:
        for k in ("b_out", "vocab", "targets"):
            if k in t:
                raise r.fail(f"{prefix}{k}", f"needs {prefix}W_out, the output layer's weights")
        if required:
            raise r.fail(f"{prefix}W_out", "missing: the output layer's weights (one row per vocabulary entry)")
        return None
    W_out = r.matrix(t["W_out"], f"{prefix}W_out")
    if W_out.shape[1] != width:
        raise r.fail(
            f"{prefix}W_out", f"has rows of width {W_out.shape[1]}, but the vector it multiplies has length {width}"
        )
    V = W_out.shape[0]
    b_out = None
    if "b_out" in t:
        b_out = r.vector(t["b_out"], f"{prefix}b_out")
        if b_out.shape[0] != V:
            raise r.fail(f"{prefix}b_out", f"has length {b_out.shape[0]} but W_out gives {V} logits")
    vocab = r.labels(t["vocab"], f"{prefix}vocab") if "vocab" in t else None
    if vocab is not None and len(vocab) != V:
        raise r.fail(f"{prefix}vocab", f"has {len(vocab)} labels but W_out gives {V} logits")
    targets = _targets(r, t["targets"], f"{prefix}targets", vocab, V, T) if "targets" in t else None
    return OutputLayer(W_out, b_out, vocab, targets)


def training(r: Reader, raw: Any, has_targets: bool) -> Training | None:
    if raw is None:
        return None
    t = r.table(raw, "training", TRAINING_KEYS)
    if not has_targets:
        raise r.fail("training", "a training step needs targets (and an output layer) to compute a gradient")
    opt = r.string(t.get("optimizer", "sgd"), "training.optimizer", ("sgd", "adam", "adamw"))
    nums = {}
    defaults = {"lr": "0.1" if opt == "sgd" else "0.001", "beta1": "0.9", "beta2": "0.999", "eps": "1e-8"}
    for k, default in defaults.items():
        if k != "lr" and opt == "sgd" and k in t:
            raise r.fail(f"training.{k}", "belongs to optimizers 'adam' and 'adamw'")
        node = r.number(t[k], f"training.{k}") if k in t else parse_number(default)
        v = to_float(node)
        if k == "lr" and not v > 0:
            raise r.fail("training.lr", "must be greater than 0")
        if k in ("beta1", "beta2") and not 0 <= v < 1:
            raise r.fail(f"training.{k}", "must be at least 0 and below 1")
        if k == "eps" and v < 0:
            raise r.fail("training.eps", "must not be negative")
        nums[k] = node
    decay, clip = training_extras(r, t, opt)
    return Training(opt, nums["lr"], nums["beta1"], nums["beta2"], nums["eps"], decay, clip)


def training_extras(r: Reader, t: dict[str, Any], opt: str) -> tuple[Any, Any]:
    """AdamW's weight decay λ (default 0.01; None for the other optimizers) and the clipping norm (None)."""
    decay = None
    if "weight_decay" in t and opt != "adamw":
        raise r.fail("training.weight_decay", "belongs to optimizer 'adamw' (decoupled weight decay)")
    if opt == "adamw":
        decay = r.number(t["weight_decay"], "training.weight_decay") if "weight_decay" in t else parse_number("0.01")
        if not to_float(decay) >= 0:
            raise r.fail("training.weight_decay", "must not be negative")
    clip = None
    if "clip_norm" in t:
        clip = r.number(t["clip_norm"], "training.clip_norm")
        if not to_float(clip) > 0:
            raise r.fail("training.clip_norm", "must be greater than 0")
    return decay, clip
