"""Kind ``attention``: one decoder step attending over encoder states, with an optional head.

Column convention (default, as in the papers): every weight multiplies a column vector from the
left (``W h_i``). Row convention: a row vector from the right (``h_i W``), as the Luong reference
document does with its stacked encoder states ``H W``.
"""

from __future__ import annotations

import numpy as np

from ..derivation import Add, Argmax, Concat, Input, Map, Product, Step
from ..derivation.arith import Chain, MistakeNotApplicable, to_float
from ..parse import Head, Problem
from ..parse.data import Attention
from .attention_scores import feedforward_scores
from .common import SoftmaxNames, convention_words, softmax_inline, softmax_steps, sqrt_dk_step


def inputs(p: Problem) -> list[Input]:
    g = p.given
    same = g["values"] is g["keys"]
    roles = {
        "query": ("s", "decoder state (query)"),
        "keys": ("h_i", "encoder states (keys), one per row" + ("; also the values" if same else "")),
        "values": ("v_i", "values, one per row"),
        "scale": ("scale", "score scale"),
        "W": ("W", "score weights"),
        "W_q": ("W_q", "query projection"),
        "W_k": ("W_k", "key projection"),
        "v": ("v_a", "scoring vector"),
        "b": ("b", "score bias"),
    }
    out = []
    for key, given in g.items():
        if key == "values" and same:
            continue
        symbol, role = roles[key]
        rows = p.tokens if key in ("keys", "values") else None
        value = given.floats[0] if key == "scale" else given.floats  # one number, not a list of one
        out.append(Input(key, symbol, value, None, rows=rows, role=role))
    d = p.payload(Attention)
    if d.head is not None:
        h = d.head
        for key, weights in (("W_c", h.W_c), ("W_out", h.W_out), ("b_out", h.b_out)):
            if weights is not None:
                rows = h.vocab if key == "W_out" and not p.row_convention else None
                cols = h.vocab if key == "W_out" and p.row_convention else None
                out.append(Input(key, key, weights.floats, None, rows=rows, cols=cols, role=f"head: {key}"))
    return out


def run(p: Problem, chain: Chain) -> list[Step]:
    g = p.given
    row = p.row_convention
    tok = p.tokens
    q = chain.given(g["query"])  # (d_q,)
    K = chain.given(g["keys"])  # (n, d_k)
    same = g["values"] is g["keys"]
    if chain.mistake == "keys_not_values" and same:
        raise MistakeNotApplicable
    V = K if same or chain.mistake == "keys_not_values" else chain.given(g["values"])  # (n, d_v)
    vsym = "h" if g["values"] is g["keys"] else "v"
    steps: list[Step] = []
    d_k = K.shape[1]

    if p.score in ("dot", "scaled-dot"):
        steps.append(
            chain.step(
                Product,
                "scores",
                chain.matmul(K, q),
                title="Alignment scores",
                formula="e_i = s · h_i",
                latex=r"e_i = s^\top h_i",
                symbol="e",
                rows=tok,
                left=K,
                right=q,
                first="right",
                explain="Each score is the dot product of the decoder state with one encoder state: "
                "the more they point the same way, the higher the score.",
            )
        )
        e = steps[-1].value
        if p.score == "scaled-dot":
            e = _scale(p, chain, e, d_k, steps)
    elif p.score == "general":
        W = chain.weight(g["W"])
        Wm = W if row else W.T
        steps.append(
            chain.step(
                Product,
                "transformed_keys",
                chain.matmul(K, Wm),
                title="Transformed encoder states",
                formula="h_i W" if row else "W h_i",
                latex=r"h_i W" if row else r"W h_i",
                symbol="Wh",
                rows=tok,
                left=K,
                right=Wm,
                first="left" if row else "right",
                explain="The general score first maps every encoder state into the decoder's space with W.",
            )
        )
        TK = steps[-1].value
        steps.append(
            chain.step(
                Product,
                "scores",
                chain.matmul(TK, q),
                title="Alignment scores",
                formula="e_i = (h_i W) · s" if row else "e_i = s · (W h_i)",
                latex=r"e_i = (h_i W)\, s^\top" if row else r"e_i = s^\top W h_i",
                symbol="e",
                rows=tok,
                left=TK,
                right=q,
                first="right",
                explain="Each score is the dot product of the decoder state with a transformed encoder state.",
            )
        )
        e = steps[-1].value
    else:
        e = feedforward_scores(p, chain, q, K, steps)

    names = SoftmaxNames(arg="e'" if p.score == "scaled-dot" else "e")
    soft, alpha = softmax_steps(chain, e, names, p.settings.shift_max, tok, None)
    steps.extend(soft)
    steps.append(
        chain.step(
            Product,
            "context",
            chain.matmul(alpha, V),
            title="Context vector",
            formula=f"c = Σ_i α_i {vsym}_i",
            latex=rf"c = \sum_i \alpha_i {vsym}_i",
            symbol="c",
            left=alpha,
            right=V,
            first="left",
            explain="The context is the weighted average of the "
            + ("encoder states" if vsym == "h" else "values")
            + ", each weighted by its attention weight.",
        )
    )
    c = steps[-1].value
    d = p.payload(Attention)
    if d.head is not None:
        steps.extend(_head(p, d.head, chain, q, c))
    return steps


def _scale(p: Problem, chain: Chain, e: np.ndarray, d_k: int, steps: list[Step]) -> np.ndarray:
    if "scale" not in p.given:
        step, out = sqrt_dk_step(chain, e, d_k, ("e'_i", "e_i", "e'"), p.tokens)
        steps.append(step)
        return out
    s = p.given["scale"]
    factor = 1 if chain.mistake == "no_scale" else chain.const(lambda: s.exact()[0], float(s.floats[0]))
    steps.append(
        chain.step(
            Map,
            "scaled_scores",
            e * factor,
            title="Scaled scores",
            formula="e'_i = e_i · scale",
            latex=r"e'_i = e_i \cdot \text{scale}",
            symbol="e'",
            rows=p.tokens,
            fn="scale",
            arg=e,
            param=np.asarray(factor),
            param_text=_num_text(float(s.floats[0])),
            explain="The given scale multiplies every score before the softmax.",
        )
    )
    scaled: np.ndarray = steps[-1].value
    return scaled


def _num_text(x: float) -> str:
    return f"{x:g}"


def _head(p: Problem, h: Head, chain: Chain, q: np.ndarray, c: np.ndarray) -> list[Step]:
    row = p.row_convention
    steps: list[Step] = []
    qc, cc = chain.coerce(q, c)
    if h.W_c is None:  # combine = "add": the parser gives W_c exactly when combine is "concat"
        steps.append(
            chain.step(
                Add,
                "combined",
                qc + cc,
                title="Combined vector",
                formula="u = s + c",
                latex="u = s + c",
                symbol="u",
                parts=(qc, cc),
                part_names=("s", "c"),
                explain="The decoder state and the context vector are added.",
            )
        )
        u = steps[-1].value
        top = u
    else:
        context_first = (h.order == "context-query") != (chain.mistake == "concat_swapped")
        order = (cc, qc) if context_first else (qc, cc)
        names = ("c", "s") if context_first else ("s", "c")
        steps.append(
            chain.step(
                Concat,
                "combined",
                np.concatenate(order),
                title="Concatenation",
                formula=f"u = [{names[0]}; {names[1]}]",
                latex=f"u = [{names[0]}; {names[1]}]",
                symbol="u",
                parts=order,
                part_names=names,
                explain="The context vector and the decoder state are stacked into one vector.",
            )
        )
        u = steps[-1].value
        W_c = chain.weight(h.W_c)
        left, right = (u, W_c) if row else (W_c, u)
        steps.append(
            chain.step(
                Product,
                "combined_projection",
                chain.matmul(left, right),
                title="Projection of the combined vector",
                formula="m = u W_c" if row else "m = W_c u",
                latex="m = u W_c" if row else "m = W_c u",
                symbol="m",
                left=left,
                right=right,
                first="left",
                explain="W_c mixes the context and the decoder state into m, the input of tanh.",
            )
        )
        m = steps[-1].value
        steps.append(
            chain.step(
                Map,
                "attentional",
                chain.tanh(m),
                title="Attentional hidden state",
                formula="h̃ = tanh(m)",
                latex=r"\tilde h = \tanh(m)",
                symbol="h̃",
                fn="tanh",
                arg=m,
                explain="tanh gives the attentional hidden state that feeds the output layer.",
            )
        )
        top = steps[-1].value
    if h.W_out is None:
        return steps
    W_out = chain.weight(h.W_out)
    b = chain.given(h.b_out) if h.b_out is not None else None
    if row:
        left, right = top, W_out
    else:
        left, right = W_out, top
    lo, ro = chain.coerce(left, right)
    logits = chain.matmul(lo, ro)
    if b is not None:
        logits, b = chain.coerce(logits, b)
        logits = logits + b
    sym = "u" if h.combine == "add" else "h̃"
    steps.append(
        chain.step(
            Product,
            "logits",
            logits,
            title="Logits",
            formula=(f"z = {sym} W_out" if row else f"z = W_out {sym}") + (" + b_out" if b is not None else ""),
            latex=(
                (f"z = {sym} W_{{out}}" if row else f"z = W_{{out}} {sym}") + (" + b_{out}" if b is not None else "")
            ).replace("h̃", r"\tilde h"),
            symbol="z",
            rows=h.vocab,
            left=lo,
            right=ro,
            bias=b,
            first="left",
            explain="The output layer gives one score per vocabulary entry.",
        )
    )
    logits = steps[-1].value
    probs = softmax_inline(
        chain, logits, "probabilities", "Output probabilities", "z", "p", p.settings.shift_max, h.vocab
    )
    steps.append(probs)
    labels = h.vocab or tuple(str(i + 1) for i in range(len(h.W_out.floats if not row else h.W_out.floats.T)))
    best = int(np.argmax(to_float(probs.value)))
    steps.append(
        Argmax(
            id="prediction",
            title="Prediction",
            formula="ŷ = argmax_i p_i",
            latex=r"\hat y = \arg\max_i p_i",
            symbol="ŷ",
            value=labels[best],
            probs=probs.value,
            labels=labels,
            explain="The prediction is the vocabulary entry with the highest probability.",
        )
    )
    return steps


def header(p: Problem) -> list[str]:
    """The words of the line under the title: the score and the convention."""
    return [p.kind, *([f"{p.score} score"] if p.score else []), convention_words(p)]
