"""Kind softmax with ``[settings] label_smoothing = ε``, in PyTorch's convention (CrossEntropyLoss,
Szegedy et al. 2016): the target becomes q = (1 − ε)·y + ε/K over the K classes (the target's entry
1 − ε + ε/K, every other ε/K); the loss is the cross-entropy −Σ_i q_i ln p_i; its gradient with
respect to the logits is p − q (divided by T with a temperature).

The Annotated Transformer smooths otherwise: 1 − ε on the target and ε/(K − 1) on the others (ε/(K − 2)
in its code, which gives the padding token 0 too), with the KL divergence as the loss; check names
ε/(K − 1) as the slip ``smoothing_k_minus_1``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ..derivation import Formula, Gradient, Product, Step
from ..derivation.arith import Chain, is_exact, to_float
from ..numbers import to_exact
from ..numbers import to_float as node_float
from .common import simplify_log


def _text(x: float) -> str:
    """ε or 1 − ε as the problem gives it: 0.1, 0.9 (a short fraction for what floats write long)."""
    text = f"{x:g}"
    if len(text) > 8:
        text = str(Fraction(x).limit_denominator(1000))
    return text


def smoothed_steps(
    chain: Chain,
    probs: np.ndarray,
    target: int,
    eps_node: Any,
    labels: tuple[str, ...] | None,
    T: Any,
    T_float: float,
) -> tuple[list[Step], np.ndarray]:
    """``smoothed_target``, ``loss`` and ``gradient``; returns the steps and the gradient."""
    K = len(probs)
    exact = is_exact(probs)
    eps_f = node_float(eps_node)
    eps = chain.number(lambda: to_exact(eps_node), eps_f)
    k_minus_1 = chain.mistake == "smoothing_k_minus_1" and K > 1
    if k_minus_1:  # the Annotated Transformer's: 1 − ε on the target, ε/(K − 1) on the others
        on, off = 1 - eps, eps / (K - 1)
        on_text = f"1 − {_text(eps_f)}"
        off_text = f"{_text(eps_f)}/{K - 1}"
    else:
        on, off = 1 - eps + eps / K, eps / K
        on_text = f"(1 − {_text(eps_f)})·1 + {_text(eps_f)}/{K}"
        off_text = f"(1 − {_text(eps_f)})·0 + {_text(eps_f)}/{K}"
    q = np.empty(K, dtype=object) if exact else np.zeros(K)
    for i in range(K):
        q[i] = on if i == target else off
    label = labels[target] if labels else str(target)
    steps: list[Step] = [
        chain.step(
            Formula,
            "smoothed_target",
            q,
            title=f"Smoothed target (ε = {eps_f:g}, K = {K})",
            formula=f"q_i = (1 − ε)·y_i + ε/K, target = {label}",
            latex="",
            symbol="q",
            rows=labels,
            written=tuple(on_text if i == target else off_text for i in range(K)),
            explain="Label smoothing (PyTorch's CrossEntropyLoss): the one-hot target keeps 1 − ε and every "
            "class, the target too, gets an equal share ε/K, so q still sums to 1.",
        )
    ]
    q = steps[0].value
    neg_log = simplify_log(-chain.log(probs))
    q_c, neg_log = chain.coerce(np.asarray(q), neg_log)
    steps.append(
        chain.step(
            Product,
            "loss",
            simplify_log(np.asarray([sum(q_c[i] * neg_log[i] for i in range(K))])),
            shape=(),
            title="Cross-entropy with the smoothed target",
            formula="L = −Σ_i q_i ln p_i = Σ_i q_i · (−ln p_i)",
            latex=r"L = -\sum_i q_i \ln p_i",
            symbol="L",
            left=q_c,
            right=neg_log,
            explain="Every class's −ln p_i counts, weighted by its share of the smoothed target: a model is "
            "penalised for being too sure of the right answer, too.",
        )
    )
    p_c, q_c = chain.coerce(probs, np.asarray(q))
    steps.append(
        chain.step(
            Gradient,
            "gradient",
            (p_c - q_c) / T,
            title="Gradient of the loss",
            formula="∂L/∂z_i = (p_i − q_i) / T" if T_float != 1 else "∂L/∂z_i = p_i − q_i",
            latex=r"\frac{\partial L}{\partial z_i} = " + (r"\frac{p_i - q_i}{T}" if T_float != 1 else r"p_i - q_i"),
            symbol="∂L/∂z",
            rows=labels,
            probs=probs,
            onehot=to_float(np.asarray(q_c)),
            temperature=T_float,
            explain="As with a one-hot target, the gradient is the prediction minus the target, now the smoothed q"
            + (", divided by T." if T_float != 1 else "."),
        )
    )
    grad = steps[-1].value
    return steps, grad
