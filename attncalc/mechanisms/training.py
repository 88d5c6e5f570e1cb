"""The parts of one training step that come before the optimiser's own: gradient clipping and AdamW's
decoupled weight decay, for every kind with ``[training]`` (softmax, the recurrent kinds, seq2seq).

Clipping, as ``torch.nn.utils.clip_grad_norm_``: the L2 norm over every gradient being updated
together, ‖g‖ = √(Σ over all of them of g²); the scale min(1, c / (‖g‖ + 10⁻⁶)); each gradient times
the scale. The update then uses the clipped gradients.

Weight decay, as ``torch.optim.AdamW`` (Loshchilov & Hutter 2019): the parameter first shrinks by
lr·λ·θ, then takes Adam's step, θ' = θ − lr·λ·θ − lr·m̂ / (√v̂ + ε); the decay never passes through
the gradient (that would be Adam with an L2 penalty, which the moments rescale).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..derivation import Map, Norm, Step
from ..derivation.arith import Chain, holds_objects, is_exact, to_float
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse.types import Training

# the slips of a training step (check names them; attncalc/derivation/arith.py MISTAKES says each in words)
TRAINING_SLIPS = ("adam_l2", "decay_no_lr", "clip_each", "clip_weights_only")
CLIP_SLIPS = ("clip_each", "clip_weights_only")  # (any optimizer: clipping comes before it)
CLIP_EPS = 1e-6  # clip_grad_norm_ adds it to the norm before dividing


@dataclass(frozen=True)
class Grad:
    """One gradient being updated: the parameter's name ("W_out"), its value, its rows and columns."""

    name: str
    value: np.ndarray
    rows: tuple[str, ...] | None
    cols: tuple[str, ...] | None


def _exact_clip_eps() -> object:
    import sympy as sp

    return sp.Rational(1, 10**6)


def clip(chain: Chain, grads: list[Grad], training: Training) -> tuple[list[Step], list[np.ndarray]]:
    """Without ``clip_norm``: no steps, the gradients as they are. With it: ``grad_norm``,
    ``clip_scale`` and ``grad_<name>_clipped`` for each gradient, and the clipped gradients."""
    if training.clip_norm is None:
        return [], [g.value for g in grads]
    values = chain.coerce(*(g.value for g in grads))
    normed = values
    if chain.mistake == "clip_weights_only":  # the biases' gradients left out of the norm
        normed = [v for g, v in zip(grads, values, strict=True) if not g.name.startswith("b")]
    flat = np.concatenate([np.asarray(v).reshape(-1) for v in normed])
    names = " + ".join(f"Σ (∂L/∂{g.name})²" for g in grads)
    steps: list[Step] = [
        chain.step(
            Norm,
            "grad_norm",
            _norm(chain, flat),
            title="Norm of the gradients together",
            formula=f"‖g‖ = √({names})",
            latex="",
            symbol="‖g‖",
            arg=flat,
            explain="Clipping looks at every gradient being updated as one long vector: its L2 norm, "
            "as torch.nn.utils.clip_grad_norm_ computes it.",
        )
    ]
    norm = steps[0].value
    c_float = node_float(training.clip_norm)
    c = chain.number(lambda: to_exact(training.clip_norm), c_float)
    steps.append(
        chain.step(
            Map,
            "clip_scale",
            _scale(c, norm),
            title=f"Clipping factor (max norm {c_float:g})",
            formula=f"s = min(1, {c_float:g} / (‖g‖ + 10⁻⁶))",
            latex="",
            symbol="s",
            fn="clip_scale",
            arg=norm,
            param=np.asarray(c_float),
            param_text=f"{c_float:g}",
            explain="A norm below the maximum leaves the gradients as they are (s = 1); a larger one scales "
            "them all by the same factor, so that their norm becomes the maximum.",
        )
    )
    scale = steps[-1].value
    out = []
    for g, v in zip(grads, values, strict=True):
        factor = scale
        if chain.mistake == "clip_each":  # each gradient clipped by its own norm
            factor = _scale(c, _norm(chain, np.asarray(v).reshape(-1)))
        v, factor = chain.coerce(np.asarray(v), np.asarray(factor))
        sid = f"grad_{g.name}_clipped"
        clipped = chain.finish(sid, v * factor.reshape(()))
        out.append(clipped)
        steps.append(
            Map(
                id=sid,
                title=f"Clipped gradient of {g.name}",
                formula=f"∂L/∂{g.name} · s",
                latex="",
                symbol=f"∂L/∂{g.name}",
                value=clipped,
                rows=g.rows,
                cols=g.cols,
                fn="scale",
                arg=v,
                param=np.asarray(to_float(np.asarray(factor)).reshape(())),
                param_text="s",
                explain="Every gradient is multiplied by the same factor s; the update uses these.",
            )
        )
    return steps, out


def _norm(chain: Chain, flat: np.ndarray) -> np.ndarray:
    """√(Σ x²) of a flat vector, as a 0-d array (exact when the vector is)."""
    if holds_objects(flat):
        total = sum((x**2 for x in flat.tolist()), start=0)
        return np.asarray(chain.sqrt(np.asarray([total], dtype=object))[0], dtype=object).reshape(())
    return np.asarray(float(np.sqrt(np.sum(np.asarray(flat, dtype=float) ** 2))))


def _scale(c: object, norm: np.ndarray) -> np.ndarray:
    """min(1, c / (norm + 10⁻⁶)); exactly 1 when the norm is within the maximum."""
    if is_exact(norm):
        ratio = c / (norm.item() + _exact_clip_eps())  # type: ignore[operator]
        if float(to_float(np.asarray([ratio], dtype=object))[0]) >= 1:
            return np.asarray(1, dtype=object).reshape(())
        return np.asarray(ratio, dtype=object).reshape(())
    ratio = float(c) / (float(norm) + CLIP_EPS)  # type: ignore[arg-type]
    return np.asarray(min(1.0, ratio))


def decay(
    chain: Chain, sid: str, name: str, theta: np.ndarray, training: Training, rows: tuple[str, ...] | None,
    cols: tuple[str, ...] | None,
) -> Map:  # fmt: skip
    """AdamW's decoupled decay of one parameter, lr·λ·θ (λ·θ under the slip ``decay_no_lr``)."""
    lam_f = node_float(training.weight_decay)
    lr_f = node_float(training.lr)
    lam = chain.number(lambda: to_exact(training.weight_decay), lam_f)
    lr = chain.number(lambda: to_exact(training.lr), lr_f)
    factor, factor_f, text = lr * lam, lr_f * lam_f, f"lr·λ = {lr_f:g}·{lam_f:g}"
    if chain.mistake == "decay_no_lr":
        factor, factor_f, text = lam, lam_f, f"λ = {lam_f:g}"
    value = chain.finish(sid, theta * factor)
    return Map(
        id=sid,
        title=f"Weight decay of {name} (AdamW, λ = {lam_f:g})",
        formula=f"lr·λ·{name}",
        latex="",
        symbol=f"lr·λ·{name}",
        value=value,
        rows=rows,
        cols=cols,
        fn="scale",
        arg=theta,
        param=np.asarray(factor_f),
        param_text=text,
        explain="AdamW shrinks the parameter itself by lr·λ·θ, apart from the gradient (decoupled weight "
        "decay); the Adam step is then taken from the shrunk parameter.",
    )
