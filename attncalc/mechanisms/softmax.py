"""Kind ``softmax``: p = softmax(z / T); with a target, loss = −ln p_target and ∂loss/∂z = (p − y)/T.

The logits are given, or computed by an output layer z = W_out h + b_out. With the hidden state h
the gradient reaches the output weights, ∂L/∂W_out = (∂L/∂z) hᵀ, and ``[training]`` takes one SGD or
Adam step on them (shown as the change alone when W_out itself is not given).
"""

from __future__ import annotations

import numpy as np

from ..arith import Chain, is_exact, to_float
from ..derivation import Gradient, Input, Loss, Product, Step
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse import Problem
from ..parse.softmax import SoftmaxData
from .common import SoftmaxNames, simplify_log, softmax_steps, temperature_step
from .label_smoothing import smoothed_steps
from .output import logits_step, train_step, update
from .training import Grad, clip


def inputs(p: Problem) -> list[Input]:
    g = p.given
    out: list[Input] = []
    if "logits" in g:
        out.append(Input("logits", "z", g["logits"].floats, None, rows=p.vocab, role="logits"))
    if "W_out" in g:
        out.append(
            Input("W_out", "W_out", g["W_out"].floats, None, rows=p.vocab, role="output layer, one row per entry")
        )
    if "b_out" in g:
        out.append(Input("b_out", "b_out", g["b_out"].floats, None, rows=p.vocab, role="output bias"))
    if "hidden" in g:
        out.append(Input("hidden", "h", g["hidden"].floats, None, role="the hidden state the logits come from"))
    return out


def run(p: Problem, chain: Chain) -> list[Step]:
    labels = p.vocab
    steps: list[Step] = []
    if "W_out" in p.given:
        h = chain.given(p.given["hidden"])
        logits = logits_step(chain, p.given["W_out"], p.given.get("b_out"), h, "logits", "z", "h", labels)
        steps.append(logits)
        z = np.asarray(logits.value)
    else:
        z = chain.given(p.given["logits"])
    T_node = p.settings.temperature
    T_float = node_float(T_node) if T_node is not None else 1.0
    T = chain.const(lambda: to_exact(T_node), T_float) if T_node is not None else 1
    arg = "z"
    if T_node is not None and T_float != 1.0:
        scaled = temperature_step(
            chain, z, T, T_float, labels, "A temperature above 1 flattens the distribution; below 1 sharpens it."
        )
        steps.append(scaled)
        z = np.asarray(scaled.value)
        arg = "z'"
    names = SoftmaxNames(arg=arg, out="p", out_id="probabilities", out_title="Probabilities")
    soft, probs = softmax_steps(chain, z, names, p.settings.shift_max, labels, None)
    steps.extend(soft)
    if p.target is None:
        return steps
    t = p.target
    if isinstance(p.data, SoftmaxData):
        smoothed, grad = smoothed_steps(chain, probs, t, p.data.label_smoothing, labels, T, T_float)
        steps.extend(smoothed)
        if "hidden" in p.given:
            steps.extend(_output_weights(p, chain, grad, labels))
        return steps
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
    if "hidden" not in p.given:
        return steps
    steps.extend(_output_weights(p, chain, grad, labels))
    return steps


def _output_weights(p: Problem, chain: Chain, grad: np.ndarray, labels: tuple[str, ...] | None) -> list[Step]:
    """∂L/∂W_out = g hᵀ (g = ∂L/∂z), then one optimiser step on W_out and b_out."""
    h = chain.given(p.given["hidden"])
    g, h = chain.coerce(grad, h)
    d = h.shape[0]
    cols = tuple(f"h[{j + 1}]" for j in range(d))
    dW = chain.finish("grad_W_out", chain.matmul(g.reshape(-1, 1), h.reshape(1, -1)))
    steps: list[Step] = [
        Product(
            id="grad_W_out",
            title="Gradient with respect to W_out",
            formula="∂L/∂W_out = (∂L/∂z) hᵀ",
            latex="",
            symbol="∂L/∂W",
            value=dW,
            rows=labels,
            cols=cols,
            left=g.reshape(-1, 1),
            right=h.reshape(1, -1),
            explain="Row v, column j: the logit gradient of v times entry j of h (z_v = w_v·h + b_v).",
        )
    ]
    if p.training is None:
        return steps
    grads = [Grad("W_out", dW, labels, cols)]
    if "W_out" in p.given and "b_out" in p.given:
        grads.append(Grad("b_out", grad, labels, None))
    clipped, (dW, *rest) = clip(chain, grads, p.training)
    steps.extend(clipped)
    if "W_out" in p.given:
        steps.extend(train_step(chain, "W_out", p.given["W_out"], dW, p.training, labels, cols, ""))
        if "b_out" in p.given:
            steps.extend(train_step(chain, "b_out", p.given["b_out"], rest[0], p.training, labels, None, "_b_out"))
    else:
        steps.append(update(chain, "W_out_change", "W_out", None, dW, p.training, labels, cols))
    return steps
