"""Kind ``seq2seq``: an encoder, a decoder (attentive, or not) with teacher forcing, the loss, its
gradient with respect to the output layer, and one update.

Bahdanau (2014) scores the encoder states with the previous decoder state s_{t-1}, and the cell
reads [y_{t-1}; c_t]; the logits come from s_t. Luong (2015) runs the cell first (on y_{t-1}, or
[y_{t-1}; h~_{t-1}] with input feeding), scores with h_t, and the logits come from the attentional
state h~_t = tanh(W_c [c_t; h_t]). Without attention (Sutskever et al. 2014, the LSTM document) the
cell reads y_{t-1} and the logits come from s_t. Every decoder starts from the encoder's final state
unless the problem gives decoder.h0 / decoder.c0, and the first decoder step says so.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..derivation import Concat, Input, Map, Product, Step
from ..derivation.arith import Chain, MistakeNotApplicable, to_float
from ..parse import Problem
from ..parse.types import AdditiveScore, Cell, GeneralScore, Seq2Seq
from . import output
from .cell_names import given_labels
from .cells import Names, cell_step
from .recurrent import check_mistake
from .seq2seq_attend import attend as _attend


def inputs(p: Problem) -> list[Input]:
    s = p.payload(Seq2Seq)
    rows = p.tokens or tuple(f"x_{i + 1}" for i in range(s.x.shape[0]))
    out = [Input("encoder.x", "x", s.x.floats, None, rows=rows, role="source embeddings, one row per token")]
    for where, cell, who in (
        ("encoder", s.encoder, "encoder"),
        ("encoder.reverse", s.reverse, "backward encoder"),
        ("decoder", s.decoder, "decoder"),
    ):
        if cell is None:
            continue
        for g in cell.shown:  # the encoder's and the decoder's weights share names: the symbol says whose
            g_rows, g_cols = given_labels(cell, g.name)
            out.append(
                Input(
                    f"{where}.{g.name}",
                    f"{g.name} ({who})",
                    g.floats,
                    None,
                    rows=g_rows,
                    cols=g_cols,
                    role=f"{who} weights",
                )
            )
    if s.inputs is not None:
        out.append(
            Input(
                "decoder.inputs",
                "y",
                s.inputs.floats,
                None,
                rows=tuple(f"y_{t}" for t in range(s.steps)),
                role="decoder inputs (teacher forcing: y_0 = <s>, then the targets)",
            )
        )
    for name, g0 in (("h0", s.dec_h0), ("c0", s.dec_c0)):
        if g0 is not None:
            sym = ("s_0" if s.attention != "luong" else "h_0") if name == "h0" else "c_0"
            out.append(Input(f"decoder.{name}", sym, g0.floats, None, role="decoder's initial state (given)"))
    scorer = s.scorer
    own = (
        [("W_a", scorer.W_a)]
        if isinstance(scorer, GeneralScore)
        else [("W_q", scorer.W_q), ("W_k", scorer.W_k), ("v", scorer.v)]
        if isinstance(scorer, AdditiveScore)
        else []
    )
    for name, gv in (*own, ("W_att", s.W_c)):
        if gv is not None:
            out.append(Input(f"decoder.{name}", name, gv.floats, None, role="attention"))
    o = s.output
    if o is None:
        return out
    out.append(Input("decoder.W_out", "W_out", o.W_out.floats, None, rows=o.vocab, role="output layer"))
    if o.b_out is not None:
        out.append(Input("decoder.b_out", "b_out", o.b_out.floats, None, rows=o.vocab, role="output bias"))
    return out


def run(p: Problem, chain: Chain) -> list[Step]:
    s = p.payload(Seq2Seq)
    kinds = {s.encoder.kind, s.decoder.kind}
    targets = s.output is not None and s.output.targets is not None
    check_mistake(chain, kinds, s.training.optimizer if s.training else None, targets, s.attention)
    steps: list[Step] = []
    X = chain.given(s.x)
    n = X.shape[0]
    labels = p.tokens or tuple(f"h_{i + 1}" for i in range(n))

    # -- encoder ----------------------------------------------------------------------------
    H, final_h, final_c = _encoder(s, chain, X, steps)

    # -- attention pieces that do not depend on the step -------------------------------------
    Kp = None
    if isinstance(s.scorer, AdditiveScore):
        steps.append(
            chain.step(
                Product,
                "projected_keys",
                chain.matmul(H, chain.given(s.scorer.W_k).T),
                title="Projected encoder states",
                formula="(W_k h)_i = W_k h_i for every source position",
                latex="",
                symbol="W_k h",
                rows=labels,
                left=H,
                right=chain.given(s.scorer.W_k).T,
                explain="The additive score's key projection does not change from step to step: it is computed once.",
            )
        )
        Kp = steps[-1].value

    # -- decoder ----------------------------------------------------------------------------
    dec = s.decoder
    h = chain.given(s.dec_h0) if s.dec_h0 is not None else final_h
    c = (chain.given(s.dec_c0) if s.dec_c0 is not None else final_c) if dec.kind == "lstm" else None
    Y = chain.given(s.inputs) if s.inputs is not None else None
    T = s.steps
    start = _start_note(chain, s, h, c, final_h, final_c, n)
    # Luong's input feeding starts from h~_0 = 0
    h_tilde = np.zeros(s.W_c.shape[0]) if s.W_c is not None else np.zeros(0)
    us, probs, losses, prefixes = [], [], [], []
    ctx_prev = np.zeros(H.shape[1])  # c_0 = 0: only the slip bahdanau_current_state reads it
    u_name = "h̃" if s.attention == "luong" else "s"
    for t in range(1, T + 1):
        pre = f"decoder.{t}."
        y = Y[t - 1] if Y is not None else None
        stated = s.dec_stated[t - 1] if t - 1 < len(s.dec_stated) else {}
        first = len(steps)
        if s.attention == "none":
            body, h, c = cell_step(
                chain, dec, dec.kind, t, Names("decoder.", h="s"), y, h, c, stated, f"s_{t - 1}", f"y_{t - 1}"
            )
            steps.extend(body)
            u = h
        elif s.attention == "bahdanau" and chain.mistake == "bahdanau_current_state":
            # the slip: the cell first (on the previous context), then the scores with its new state s_t
            assert y is not None
            inp = _concat(chain, steps, pre + "input", [y, ctx_prev], [f"y_{t - 1}", f"c_{t - 1}"], "Decoder input")
            body, h, c = cell_step(
                chain, dec, dec.kind, t, Names("decoder.", h="s"), inp, h, c, stated, f"s_{t - 1}", "input"
            )
            steps.extend(body)
            ctx_prev = _attend(chain, s, steps, pre, t, h, f"s_{t}", H, Kp, labels, p.settings.shift_max)
            u = h
        elif s.attention == "bahdanau":
            assert y is not None
            ctx = _attend(chain, s, steps, pre, t, h, f"s_{t - 1}", H, Kp, labels, p.settings.shift_max)
            inp = _concat(chain, steps, pre + "input", [y, ctx], [f"y_{t - 1}", f"c_{t}"], "Decoder input")
            body, h, c = cell_step(
                chain,
                dec,
                dec.kind,
                t,
                Names("decoder.", h="s"),
                inp,
                h,
                c,
                stated,
                f"s_{t - 1}",
                f"[y_{t - 1}; c_{t}]",
            )
            steps.extend(body)
            u = h
        else:
            assert y is not None
            if s.input_feeding:
                inp = _concat(
                    chain,
                    steps,
                    pre + "input",
                    [y, h_tilde],
                    [f"y_{t - 1}", f"h̃_{t - 1}"],
                    "Decoder input (input feeding)",
                )
                x_label = f"[y_{t - 1}; h̃_{t - 1}]"
            else:
                inp, x_label = y, f"y_{t - 1}"
            body, h, c = cell_step(chain, dec, dec.kind, t, Names("decoder."), inp, h, c, stated, f"h_{t - 1}", x_label)
            steps.extend(body)
            ctx = _attend(chain, s, steps, pre, t, h, f"h_{t}", H, Kp, labels, p.settings.shift_max)
            comb = _concat(chain, steps, pre + "combined", [ctx, h], [f"c_{t}", f"h_{t}"], "Context and state")
            assert s.W_c is not None
            Wc = chain.given(s.W_c)
            steps.append(
                chain.step(
                    Product,
                    pre + "attentional_pre",
                    chain.matmul(Wc, comb),
                    title="Attentional state: pre-activation",
                    formula=f"a_{t} = W_att·[c_{t}; h_{t}]",
                    latex="",
                    symbol=f"a_{t}",
                    left=Wc,
                    right=comb,
                    explain="Luong's attentional layer mixes the context with the decoder state.",
                )
            )
            a_pre = steps[-1].value
            steps.append(
                chain.step(
                    Map,
                    pre + "attentional",
                    chain.tanh(a_pre),
                    title="Attentional state",
                    formula=f"h̃_{t} = tanh(W_att [c_{t}; h_{t}])",
                    latex="",
                    symbol=f"h̃_{t}",
                    fn="tanh",
                    arg=a_pre,
                    explain="h̃_t feeds the output layer" + (" and the next step's input." if s.input_feeding else "."),
                )
            )
            h_tilde = steps[-1].value
            u = h_tilde
            if chain.mistake == "luong_logits_from_h":  # the slip: the output layer reads h_t, not h̃_t
                if len(h) != len(h_tilde):
                    raise MistakeNotApplicable
                u = h
        if t == 1 and len(steps) > first:
            steps[first] = dataclasses.replace(steps[first], intro=start)
        if s.output is None:
            continue
        out_steps, pr, loss = output.one_step(chain, s.output, u, pre, t, f"{u_name}_{t}", p.settings.shift_max)
        steps.extend(out_steps)
        us.append(u)
        probs.append(pr)
        if loss is not None:
            losses.append(loss)
        prefixes.append(pre)
    if s.output is not None and s.output.targets is not None:  # the parser asks for targets with an output layer
        steps.extend(
            output.sequence_steps(chain, s.output, s.output.targets, us, probs, losses, prefixes, u_name, s.training)
        )
    return steps


def _encoder(
    s: Seq2Seq, chain: Chain, X: np.ndarray, steps: list[Step]
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The encoder's steps (both directions, then each position's two states side by side, when it is
    bidirectional): its states H, and its final state and cell state (None without one)."""
    n = X.shape[0]

    def run_cell(cell: Cell, names: Names, order: list[int], arrow: str) -> tuple[list[np.ndarray], np.ndarray | None]:
        """The cell over the positions in ``order``: its states by position (1..n), and its last cell state."""
        h = chain.given(s.enc_h0)
        c = chain.given(s.enc_c0) if s.enc_c0 is not None else None
        hs: dict[int, np.ndarray] = {}
        prev = None
        for t in order:
            h_label = f"h{arrow}_{prev}" if prev is not None else f"h{arrow}_0"
            stated = s.enc_stated[t - 1] if t - 1 < len(s.enc_stated) else {}
            body, h, c = cell_step(chain, cell, cell.kind, t, names, X[t - 1], h, c, stated, h_label, f"x_{t}")
            steps.extend(body)
            hs[t] = h
            prev = t
        return [hs[t] for t in range(1, n + 1)], c

    if s.reverse is None:
        H_list, c_last = run_cell(s.encoder, Names("encoder."), list(range(1, n + 1)), "")
        final_h = H_list[-1]
        final_c = c_last
    else:
        fwd, c_f = run_cell(s.encoder, Names("encoder.fwd.", h="h→"), list(range(1, n + 1)), "→")
        bwd, c_b = run_cell(s.reverse, Names("encoder.bwd.", h="h←"), list(range(n, 0, -1)), "←")
        H_list = []
        for t in range(1, n + 1):
            parts = chain.coerce(fwd[t - 1], bwd[t - 1])
            steps.append(
                chain.step(
                    Concat,
                    f"encoder.{t}.state",
                    np.concatenate(parts),
                    title="Encoder state (both directions)",
                    formula=f"h_{t} = [h→_{t}; h←_{t}]",
                    latex="",
                    symbol=f"h_{t}",
                    parts=tuple(parts),
                    part_names=(f"h→_{t}", f"h←_{t}"),
                    explain="A bidirectional encoder describes each word by what comes before it and what comes after.",
                )
            )
            v = steps[-1].value
            H_list.append(v)
        final_h = np.concatenate(chain.coerce(fwd[-1], bwd[0]))
        final_c = np.concatenate(chain.coerce(c_f, c_b)) if c_f is not None and c_b is not None else None
    return np.stack(chain.coerce(*H_list)), final_h, final_c


def _start_note(
    chain: Chain,
    s: Seq2Seq,
    h: np.ndarray,
    c: np.ndarray | None,
    final_h: np.ndarray,
    final_c: np.ndarray | None,
    n: int,
) -> str:
    """One sentence saying where the decoder starts, with the numbers."""

    def vec(v: np.ndarray) -> str:
        from ..derivation.fmt import fmt

        return "[" + ", ".join(fmt(float(x), chain.decimals) for x in to_float(np.asarray(v)).reshape(-1)) + "]"

    sym = "h_0" if s.attention == "luong" else "s_0"
    enc_h = f"[h→_{n}; h←_1]" if s.reverse is not None else f"h_{n}"
    enc_c = f"[c→_{n}; c←_1]" if s.reverse is not None else f"c_{n}"
    parts = []
    if s.dec_h0 is not None:
        parts.append(f"{sym} = {vec(h)} (given: decoder.h0)")
    else:
        parts.append(f"{sym} = {enc_h} = {vec(h)}")
    if c is not None:
        parts.append(f"c_0 = {vec(c)} (given: decoder.c0)" if s.dec_c0 is not None else f"c_0 = {enc_c} = {vec(c)}")
    given = s.dec_h0 is not None and (c is None or s.dec_c0 is not None)
    where = "from the given initial state" if given else "from the encoder's final state"
    if s.reverse is not None and not given:
        where += " (each direction's last state, as PyTorch's h_n)"
    return f"The decoder starts {where}: " + ", ".join(parts) + "."


def _concat(
    chain: Chain, steps: list[Step], sid: str, parts: list[np.ndarray], names: list[str], title: str
) -> np.ndarray:
    parts = chain.coerce(*parts)
    label = "[" + "; ".join(names) + "]"
    steps.append(
        chain.step(
            Concat,
            sid,
            np.concatenate(parts),
            title=title,
            formula=label,
            latex="",
            symbol=label,
            parts=tuple(parts),
            part_names=tuple(names),
        )
    )
    done: np.ndarray = steps[-1].value
    return done


def header(p: Problem) -> list[str]:
    s = p.payload(Seq2Seq)
    enc = f"{'bidirectional ' if s.reverse is not None else ''}{s.encoder.kind.upper()} encoder"
    att = (
        "no attention (the decoder starts from the encoder's final state)"
        if s.attention == "none"
        else f"{s.attention.capitalize()} attention ({s.score} score{', input feeding' if s.input_feeding else ''})"
    )
    return [p.kind, enc, f"{s.decoder.kind.upper()} decoder", att]
