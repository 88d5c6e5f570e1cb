"""Kind ``softmax``: p = softmax(z / T); with a target, loss = −ln p_target and ∂loss/∂z = (p − y)/T."""

from __future__ import annotations

import numpy as np

from ..arith import Chain, is_exact, to_float
from ..derivation import Gradient, Input, Loss, Map, Step
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..problem import Problem
from .common import SoftmaxNames, simplify_log, softmax_steps


def inputs(p: Problem) -> list[Input]:
    return [Input("logits", "z", p.given["logits"].floats, None, rows=p.vocab, role="logits")]


def run(p: Problem, chain: Chain) -> list[Step]:
    z = chain.given(p.given["logits"])
    labels = p.vocab
    steps: list[Step] = []
    T_node = p.settings.temperature
    T_float = node_float(T_node) if T_node is not None else 1.0
    T = chain.const(lambda: to_exact(T_node), T_float) if T_node is not None else 1
    arg = "z"
    if T_node is not None and T_float != 1.0:
        scaled = chain.finish("scaled_logits", z / T)
        steps.append(
            Map(
                id="scaled_logits",
                title="Logits divided by the temperature",
                formula=f"z_i / T, T = {T_float:g}",
                latex=rf"z_i / T,\ T = {T_float:g}",
                symbol="z/T",
                value=scaled,
                rows=labels,
                fn="divide",
                arg=z,
                param=np.asarray(T),
                param_text=f"{T_float:g}",
                explain="A temperature above 1 flattens the distribution; below 1 sharpens it.",
            )
        )
        z = scaled
        arg = "z'"
    names = SoftmaxNames(arg=arg, out="p", out_id="probabilities", out_title="Probabilities")
    soft, probs = softmax_steps(chain, z, names, p.settings.shift_max, labels, None)
    steps.extend(soft)
    if p.target is None:
        return steps
    t = p.target
    label = labels[t] if labels else str(t)
    p_t = probs[t]
    loss_value = -chain.log(np.asarray([p_t], dtype=probs.dtype))
    loss = chain.finish("loss", simplify_log(loss_value)).reshape(())
    steps.append(
        Loss(
            id="loss",
            title="Cross-entropy loss",
            formula=f"L = −ln p_target, target = {label}",
            latex=rf"L = -\ln p_{{\text{{{label}}}}}",
            symbol="L",
            value=loss,
            prob=float(to_float(np.asarray([p_t]))[0]),
            target=t,
            label=label,
            explain="Cross-entropy is the negative log of the probability given to the right answer.",
        )
    )
    y = np.zeros(len(probs), dtype=probs.dtype)
    if is_exact(probs):
        y = np.array([0] * len(probs), dtype=object)
    y[t] = 1
    grad = (probs - y) / T
    grad = chain.finish("gradient", grad)
    steps.append(
        Gradient(
            id="gradient",
            title="Gradient of the loss",
            formula="∂L/∂z_i = (p_i − y_i) / T" if T_float != 1 else "∂L/∂z_i = p_i − y_i",
            latex=r"\frac{\partial L}{\partial z_i} = " + (r"\frac{p_i - y_i}{T}" if T_float != 1 else r"p_i - y_i"),
            symbol="∂L/∂z",
            value=grad,
            rows=labels,
            probs=probs,
            onehot=to_float(y),
            temperature=T_float,
            explain="The gradient of softmax cross-entropy is the prediction minus the one-hot target"
            + (", divided by T." if T_float != 1 else "."),
        )
    )
    return steps
