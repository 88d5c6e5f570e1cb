"""The output layer and one training step, shared by the recurrent kinds and seq2seq.

Per step: logits = W_out u + b_out, the softmax, the prediction and (with a target) the
cross-entropy −ln p_target. Over the sequence: the probability of the target sequence, the total
loss, ∂L/∂logits = p − y at every step, ∂L/∂W_out = Σ_t (p_t − y_t) u_tᵀ, ∂L/∂b_out = Σ_t (p_t − y_t),
and one SGD or Adam update of W_out and b_out.
"""

from __future__ import annotations

import numpy as np

from ..derivation import Argmax, Combine, Gradient, Loss, Product, Step, Sum, Update
from ..derivation.arith import Chain, holds_objects, is_exact, to_float
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse import Given
from ..parse.types import OutputLayer, Training
from .common import simplify_log, softmax_inline
from .training import Grad, clip, decay


def one_step(
    chain: Chain,
    out: OutputLayer,
    u: np.ndarray,
    pre: str,
    t: int,
    u_name: str,
    shift_mode: str,
) -> tuple[list[Step], np.ndarray, np.ndarray | None]:
    """logits, probabilities, prediction and (with a target) loss of step ``t``.

    Returns the steps, the probabilities and the step's loss (None without targets), as carried.
    """
    V = out.W_out.shape[0]
    labels = out.vocab or tuple(f"w{k + 1}" for k in range(V))
    logits = logits_step(chain, out.W_out, out.b_out, u, pre + "logits", f"z_{t}", u_name, labels)
    z = np.asarray(logits.value)  # as finished: the answerer's own logits when check carries them
    steps: list[Step] = [logits]
    soft = softmax_inline(chain, z, pre + "probabilities", "Probabilities", f"z_{t}", f"p_{t}", shift_mode, labels)
    steps.append(soft)
    probs = np.asarray(soft.value)
    steps.append(
        Argmax(
            id=pre + "prediction",
            title="Prediction",
            formula=f"ŷ_{t} = argmax p_{t}",
            latex="",
            symbol=f"ŷ_{t}",
            value=labels[int(np.argmax(to_float(probs)))],
            probs=probs,
            labels=labels,
            explain="Greedy decoding picks the most probable entry.",
        )
    )
    loss = None
    if out.targets is not None:
        k = target_row(chain, out.targets[t - 1])
        p_t = probs[k]
        steps.append(
            chain.step(
                Loss,
                pre + "loss",
                simplify_log(-chain.log(np.asarray([p_t], dtype=probs.dtype))).reshape(()),
                title="Cross-entropy at this step",
                formula=f"L_{t} = −ln p_{t}({labels[k]})",
                latex="",
                symbol=f"L_{t}",
                prob=float(to_float(np.asarray([p_t]))[0]),
                target=k,
                label=labels[k],
                explain="With teacher forcing the target token is known at every step; the loss is −ln of its probability.",
            )
        )
        loss = steps[-1].value
    return steps, probs, loss


def target_row(chain: Chain, k: int) -> int:
    """The target's row of the softmax (another row under the mistake ``wrong_vocab_row``)."""
    if chain.mistake == "wrong_vocab_row" and chain.mistake_arg is not None:
        return chain.mistake_arg
    return k


def logits_step(
    chain: Chain,
    W_out: Given,
    b_out: Given | None,
    u: np.ndarray,
    sid: str,
    symbol: str,
    u_name: str,
    labels: tuple[str, ...] | None,
) -> Product:
    """z = W_out u + b_out, one dot product per vocabulary entry."""
    W = chain.given(W_out)
    b = chain.given(b_out) if b_out is not None else None
    z = chain.matmul(W, u)
    if b is not None:
        z = z + b
    return Product(
        id=sid,
        title="Logits",
        formula=f"{symbol} = W_out·{u_name}" + (" + b_out" if b is not None else ""),
        latex="",
        symbol=symbol,
        value=chain.finish(sid, z),
        rows=labels,
        left=W,
        right=u,
        bias=b,
        explain="The output layer scores every vocabulary entry: one dot product per row of W_out.",
    )


def sequence_steps(
    chain: Chain,
    out: OutputLayer,
    targets: tuple[int, ...],
    us: list[np.ndarray],
    probs: list[np.ndarray],
    losses: list[np.ndarray],
    prefixes: list[str],
    u_name: str,
    training: Training | None,
) -> list[Step]:
    """Sequence probability, total loss, gradients and the update (``targets``: the output layer's, one per step)."""
    V = len(to_float(probs[0]))
    labels = out.vocab or tuple(f"w{k + 1}" for k in range(V))
    targets = tuple(target_row(chain, k) for k in targets)
    chosen = [p[k] for p, k in zip(probs, targets, strict=True)]
    steps: list[Step] = list(totals(chain, chosen, losses, [f"p_{t}({labels[k]})" for t, k in enumerate(targets, 1)]))
    grads = []
    for t, (p, k, pre) in enumerate(zip(probs, targets, prefixes, strict=True), 1):
        y = np.zeros(V, dtype=object if is_exact(p) else float)
        if is_exact(p):
            y[:] = 0
        y[k] = 1
        steps.append(
            chain.step(
                Gradient,
                pre + "grad_logits",
                p - y,
                title="Gradient with respect to the logits",
                formula=f"∂L/∂z_{t} = p_{t} − y_{t}",
                latex="",
                symbol=f"∂L/∂z_{t}",
                rows=labels,
                probs=p,
                onehot=to_float(y),
                explain="For softmax with cross-entropy the gradient is the prediction minus the one-hot target.",
            )
        )
        g = steps[-1].value
        grads.append(g)
    G = np.stack(chain.coerce(*grads))  # T × V
    U = np.stack(chain.coerce(*us))  # T × d
    G, U = chain.coerce(G, U)
    d = U.shape[1]
    steps.append(
        chain.step(
            Product,
            "grad_W_out",
            chain.matmul(G.T, U),
            title="Gradient with respect to W_out",
            formula=f"∂L/∂W_out = Σ_t (p_t − y_t) {u_name}_tᵀ",
            latex="",
            symbol="∂L/∂W",
            rows=labels,
            cols=tuple(f"{u_name}[{j + 1}]" for j in range(d)),
            left=G.T,
            right=U,
            explain=f"Row v, column j: the sum over steps of the logit gradient for v times entry j of {u_name}_t.",
        )
    )
    dW = steps[-1].value
    db = None
    if out.b_out is not None:
        steps.append(
            chain.step(
                Sum,
                "grad_b_out",
                np.asarray([sum(row.tolist()) for row in G.T], dtype=G.dtype),
                title="Gradient with respect to b_out",
                formula="∂L/∂b_out = Σ_t (p_t − y_t)",
                latex="",
                symbol="∂L/∂b",
                rows=labels,
                arg=G.T,
                explain="The bias gradient is the sum of the logit gradients over the steps.",
            )
        )
        db = steps[-1].value
    if training is None:
        return steps
    updated = [Grad("W_out", dW, labels, None)]
    if out.b_out is not None and db is not None:
        updated.append(Grad("b_out", db, labels, None))
    clipped, (dW, *rest) = clip(chain, updated, training)
    steps.extend(clipped)
    steps.extend(train_step(chain, "W_out", out.W_out, dW, training, labels, None, ""))
    if out.b_out is not None and rest:
        steps.extend(train_step(chain, "b_out", out.b_out, rest[0], training, labels, None, "_b_out"))
    return steps


def train_step(
    chain: Chain,
    name: str,
    param: Given,
    grad: np.ndarray,
    training: Training,
    rows: tuple[str, ...] | None,
    cols: tuple[str, ...] | None,
    suffix: str,
) -> list[Step]:
    """The update of one given parameter: with AdamW its decay first (``decay``, ``decay_b_out``), then
    ``{name}_new``."""
    if training.optimizer != "adamw":
        return [update(chain, f"{name}_new", name, param, grad, training, rows, cols)]
    d = decay(chain, "decay" + suffix, name, chain.given(param), training, rows, cols)
    return [d, update(chain, f"{name}_new", name, param, grad, training, rows, cols, np.asarray(d.value))]


def totals(chain: Chain, chosen: list[np.ndarray], losses: list[np.ndarray], names: list[str]) -> tuple[Step, Step]:
    """The probability of the target sequence (the product of each step's) and the total loss (the sum)."""
    T = len(chosen)
    exact = all(holds_objects(np.asarray(p)) for p in chosen)
    chosen_arr = np.asarray(chosen, dtype=object if exact else float)
    prod = chosen_arr[0]
    for x in chosen_arr[1:]:
        prod = prod * x
    seq_step = chain.step(
        Combine,
        "sequence_probability",
        np.asarray(prod, dtype=chosen_arr.dtype),
        title="Probability of the target sequence",
        formula="P(y) = " + " · ".join(names),
        latex="",
        symbol="P(y)",
        terms=((chosen_arr,),),
        complement=((False,),),
        scalar_product=True,
        explain="The chain rule of probability: the sequence's probability is the product of each step's.",
    )
    items = [np.asarray(x).reshape(()).item() for x in losses]
    if all(holds_objects(np.asarray(x)) for x in losses):
        per_step = np.asarray(items, dtype=object)
    else:
        per_step = to_float(np.asarray(items, dtype=object))
    total = per_step[0]
    for x in per_step[1:]:
        total = total + x
    loss_step = chain.step(
        Sum,
        "loss",
        simplify_log(np.asarray([total], dtype=per_step.dtype)).reshape(()),
        title="Total cross-entropy loss",
        formula="L = " + " + ".join(f"L_{t}" for t in range(1, T + 1)),
        latex="",
        symbol="L",
        arg=per_step,
        explain="The sequence loss is the sum of the step losses, −ln P(y).",
    )
    return seq_step, loss_step


def update(
    chain: Chain,
    sid: str,
    name: str,
    param_given: Given | None,
    grad: np.ndarray,
    training: Training,
    rows: tuple[str, ...] | None,
    cols: tuple[str, ...] | None,
    decayed: np.ndarray | None = None,
) -> Update:
    """One optimiser step on ``name``; without ``param_given`` (the parameter unknown) the change alone.
    ``decayed``: AdamW's decay lr·λ·θ (the step ``decay``), subtracted before the Adam step."""
    if param_given is not None:
        theta, grad = chain.coerce(chain.given(param_given), grad)
        start, lhs = f"{name} − ", f"{name}'"
    else:
        theta, start, lhs = None, "−", f"Δ{name}"
    lr = chain.number(lambda: to_exact(training.lr), node_float(training.lr))
    opt = training.optimizer
    adam = opt == "adamw" or (opt == "adam" and chain.mistake != "sgd_for_adam")
    if adam:
        b1 = chain.number(lambda: to_exact(training.beta1), node_float(training.beta1))
        b2 = chain.number(lambda: to_exact(training.beta2), node_float(training.beta2))
        eps = chain.number(lambda: to_exact(training.eps), node_float(training.eps))
        if opt == "adamw" and theta is not None and chain.mistake == "adam_l2":  # the decay through the gradient
            lam = chain.number(lambda: to_exact(training.weight_decay), node_float(training.weight_decay))
            grad = grad + lam * theta
            decayed = None
        m = (1 - b1) * grad
        v = (1 - b2) * grad * grad
        m_hat = m / (1 - b1)
        v_hat = v / (1 - b2)
        new = -(lr * m_hat / (chain.sqrt(v_hat) + eps))
        formula = f"{lhs} = {start}lr · m̂ / (√v̂ + ε), where m̂ = g and √v̂ = |g| at the first step"
        explain = (
            "Adam's first step (t = 1, m₀ = v₀ = 0): m = (1 − β1) g and v = (1 − β2) g², and the bias corrections "
            "divide them by (1 − β1) and (1 − β2) again, so m̂ = g and v̂ = g²: every entry moves by about lr, "
            "against the sign of its gradient."
        )
        if decayed is not None:
            formula = f"{lhs} = {start}lr·λ·{name} − lr · m̂ / (√v̂ + ε), where m̂ = g and √v̂ = |g| at the first step"
            explain += " AdamW first takes the decay lr·λ·θ off the parameter itself."
    else:
        m_hat = v_hat = None
        new = -(lr * grad)
        formula = f"{lhs} = {start}lr · ∂L/∂{name}"
        explain = "Plain gradient descent: every entry moves against its gradient, scaled by the learning rate."
    if theta is not None:
        if decayed is None:
            new = theta + new
        else:
            theta_c, decayed_c, new = chain.coerce(theta, np.asarray(decayed), np.asarray(new))
            new = theta_c - decayed_c + new
    else:
        explain += f" {name} itself is not given, so this is the change to add to it."
    new = chain.finish(sid, new)
    what = "Updated" if theta is not None else "Change of"
    shown_opt = {"adam": "Adam", "adamw": "AdamW"}.get(opt, "SGD") if adam else "SGD"
    return Update(
        id=sid,
        title=f"{what} {name} ({shown_opt}, lr = {node_float(training.lr):g})",
        formula=formula,
        latex="",
        symbol=lhs,
        value=new,
        rows=rows,
        cols=cols,
        param=theta,
        grad=grad,
        optimizer=("adam" if adam else "sgd"),
        lr=node_float(training.lr),
        beta1=node_float(training.beta1),
        beta2=node_float(training.beta2),
        eps=node_float(training.eps),
        m_hat=m_hat,
        v_hat=v_hat,
        decay=decayed,
        explain=explain,
    )
