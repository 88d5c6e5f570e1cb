"""Kind ``softmax``: p = softmax(z / T); with a target, loss = −ln p_target and ∂loss/∂z = (p − y)/T.

The logits are given, or computed by an output layer z = W_out h + b_out. With the hidden state h
the gradient reaches the output weights, ∂L/∂W_out = (∂L/∂z) hᵀ, and ``[training]`` takes one SGD or
Adam step on them (shown as the change alone when W_out itself is not given).
"""

from __future__ import annotations

import numpy as np

from ..derivation import Gradient, Input, Loss, Product, Step
from ..derivation.arith import Chain, is_exact, to_float
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse import Given, Problem
from ..parse.softmax import Softmax, Target
from .common import SoftmaxNames, simplify_log, softmax_steps, temperature_bits, temperature_step
from .label_smoothing import smoothed_steps
from .output import logits_step, train_step, update
from .training import Grad, clip


def inputs(p: Problem) -> list[Input]:
    d = p.payload(Softmax)
    out: list[Input] = []
    if isinstance(d.logits, Given):
        out.append(Input("logits", "z", d.logits.floats, None, rows=d.vocab, role="logits"))
    else:
        layer = d.logits
        out.append(
            Input("W_out", "W_out", layer.W_out.floats, None, rows=d.vocab, role="output layer, one row per entry")
        )
        if layer.b_out is not None:
            out.append(Input("b_out", "b_out", layer.b_out.floats, None, rows=d.vocab, role="output bias"))
    if d.hidden is not None:
        out.append(Input("hidden", "h", d.hidden.floats, None, role="the hidden state the logits come from"))
    return out


def run(p: Problem, chain: Chain) -> list[Step]:
    d = p.payload(Softmax)
    labels = d.vocab
    steps: list[Step] = []
    if isinstance(d.logits, Given):
        z = chain.given(d.logits)
    else:
        layer = d.logits
        h = chain.given(layer.hidden)
        logits = logits_step(chain, layer.W_out, layer.b_out, h, "logits", "z", "h", labels)
        steps.append(logits)
        z = np.asarray(logits.value)
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
    if d.target is None:
        return steps
    t = d.target.index
    if d.target.label_smoothing is not None:
        smoothed, grad = smoothed_steps(chain, probs, t, d.target.label_smoothing, labels, T, T_float)
        steps.extend(smoothed)
        if d.hidden is not None:
            steps.extend(_output_weights(d, d.target, d.hidden, chain, grad))
        return steps
    label = labels[t] if labels else str(t)
    p_t = probs[t]
    loss_value = -chain.log(np.asarray([p_t], dtype=probs.dtype))
    steps.append(
        chain.step(
            Loss,
            "loss",
            simplify_log(loss_value),
            shape=(),
            title="Cross-entropy loss",
            formula=f"L = −ln p_target, target = {label}",
            latex=rf"L = -\ln p_{{\text{{{label}}}}}",
            symbol="L",
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
    steps.append(
        chain.step(
            Gradient,
            "gradient",
            grad,
            title="Gradient of the loss",
            formula="∂L/∂z_i = (p_i − y_i) / T" if T_float != 1 else "∂L/∂z_i = p_i − y_i",
            latex=r"\frac{\partial L}{\partial z_i} = " + (r"\frac{p_i - y_i}{T}" if T_float != 1 else r"p_i - y_i"),
            symbol="∂L/∂z",
            rows=labels,
            probs=probs,
            onehot=to_float(y),
            temperature=T_float,
            explain="The gradient of softmax cross-entropy is the prediction minus the one-hot target"
            + (", divided by T." if T_float != 1 else "."),
        )
    )
    grad = steps[-1].value
    if d.hidden is None:
        return steps
    steps.extend(_output_weights(d, d.target, d.hidden, chain, grad))
    return steps


def _output_weights(sm: Softmax, target: Target, hidden: Given, chain: Chain, grad: np.ndarray) -> list[Step]:
    """∂L/∂W_out = g hᵀ (g = ∂L/∂z), then one optimiser step on W_out and b_out."""
    labels = sm.vocab
    h = chain.given(hidden)
    g, h = chain.coerce(grad, h)
    d = h.shape[0]
    cols = tuple(f"h[{j + 1}]" for j in range(d))
    steps: list[Step] = [
        chain.step(
            Product,
            "grad_W_out",
            chain.matmul(g.reshape(-1, 1), h.reshape(1, -1)),
            title="Gradient with respect to W_out",
            formula="∂L/∂W_out = (∂L/∂z) hᵀ",
            latex="",
            symbol="∂L/∂W",
            rows=labels,
            cols=cols,
            left=g.reshape(-1, 1),
            right=h.reshape(1, -1),
            explain="Row v, column j: the logit gradient of v times entry j of h (z_v = w_v·h + b_v).",
        )
    ]
    dW = steps[0].value
    training, layer = target.training, sm.layer
    if training is None:
        return steps
    grads = [Grad("W_out", dW, labels, cols)]
    if layer is not None and layer.b_out is not None:
        grads.append(Grad("b_out", grad, labels, None))
    clipped, (dW, *rest) = clip(chain, grads, training)
    steps.extend(clipped)
    if layer is not None:
        steps.extend(train_step(chain, "W_out", layer.W_out, dW, training, labels, cols, ""))
        if layer.b_out is not None:
            steps.extend(train_step(chain, "b_out", layer.b_out, rest[0], training, labels, None, "_b_out"))
    else:
        steps.append(update(chain, "W_out_change", "W_out", None, dW, training, labels, cols))
    return steps


def header(p: Problem) -> list[str]:
    d = p.payload(Softmax)
    bits = [p.kind, *(["output layer z = W_out h + b_out"] if d.layer is not None else []), *temperature_bits(p)]
    if d.target is not None:
        t = d.target.index
        label = d.vocab[t] if d.vocab is not None else f"entry {t + 1}"
        bits.append(f"target {label}")
    return bits
