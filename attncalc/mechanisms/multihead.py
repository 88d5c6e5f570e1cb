"""Kind ``multi-head`` (Vaswani et al. 2017; PyTorch's nn.MultiheadAttention), row convention.

Q = X W_Q + b_Q, K = X W_K + b_K (memory W_K in cross-attention; the cached rows first with a cache),
V likewise; head j takes its block of d_k columns of Q (and of K and V, or of its group's key/value
head with kv_heads), scores Q_j K_jᵀ / √d_k (d_k of the head), masks, row-wise softmax, A_j V_j;
the heads side by side, then W_O.
"""

from __future__ import annotations

import numpy as np

from ..arith import Chain, MistakeNotApplicable, is_exact
from ..derivation import Add, Arrange, Formula, Input, Mask, Product, Step
from ..parse import Problem
from ..parse.types import MultiHead
from . import positions as pos
from . import sliding_window
from .common import SoftmaxNames, softmax_steps, sqrt_dk_step
from .multihead_positions import position_steps, rope_steps, row_range
from .self_attention import apply_mask


def inputs(p: Problem) -> list[Input]:
    mh = p.payload(MultiHead)
    tok = p.tokens
    out = [Input("X", "X", mh.X.floats, None, rows=tok, role="the queries' rows (one per token)")]
    if mh.memory is not None:
        out.append(
            Input("memory", "M", mh.memory.floats, None, rows=mh.key_labels, role="memory: the keys' and values' rows")
        )
    if mh.P is not None:
        out.append(Input("positions", "P", mh.P.floats, None, rows=tok, role="learned positions, added to X"))
    for key, g in mh.W.items():
        out.append(Input(key, key, g.floats, None, role=_ROLE[key]))
    for key, g in mh.b.items():
        out.append(Input(key, key, g.floats, None, role="bias"))
    if mh.cache is not None:
        cached = mh.key_labels[: mh.t]
        out.append(Input("cache.K", "K_cache", mh.cache.K.floats, None, rows=cached, role="cached keys"))
        out.append(Input("cache.V", "V_cache", mh.cache.V.floats, None, rows=cached, role="cached values"))
    return out


_ROLE = {
    "W_Q": "query projection, heads side by side",
    "W_K": "key projection",
    "W_V": "value projection",
    "W_O": "output projection",
}


def run(p: Problem, chain: Chain, X_in: np.ndarray | None = None, M_in: np.ndarray | None = None) -> list[Step]:
    """The steps; ``X_in`` and ``M_in`` replace the given rows (a transformer layer's sublayer input)."""
    mh = p.payload(MultiHead)
    n = mh.X.shape[0]
    tok = p.tokens or tuple(f"x{i + 1}" for i in range(n))
    keys = mh.key_labels
    t = mh.t
    q_pos = [t + i for i in range(n)]
    steps: list[Step] = []
    X = chain.given(mh.X) if X_in is None else X_in
    M = (chain.given(mh.memory) if mh.memory is not None else None) if M_in is None else M_in
    X, M = position_steps(p, chain, X, M, q_pos, tok, steps)

    H, G = mh.heads, mh.kv_heads
    d_k, d_v = mh.d_k, mh.d_v
    if chain.mistake == "one_head":
        if H == 1 or G != H:
            raise MistakeNotApplicable
        H, G, d_k, d_v = 1, 1, H * d_k, H * d_v
    src = M if M is not None else X
    src_name = "M" if M is not None else ("X_pos" if mh.positions in ("sinusoidal", "learned") else "X")
    x_name = "X_pos" if mh.positions in ("sinusoidal", "learned") else "X"
    Q = _project(chain, steps, "Q", X, x_name, mh.W["W_Q"], mh.b.get("b_Q"), tok, "Queries")
    if mh.cache is not None:
        KV = {}
        news = {
            name: _project(
                chain,
                steps,
                f"{name}_new",
                X,
                x_name,
                mh.W[f"W_{name}"],
                mh.b.get(f"b_{name}"),
                tok,
                "New " + {"K": "keys", "V": "values"}[name],
            )
            for name in ("K", "V")
        }
        for name, cache in (("K", mh.cache.K), ("V", mh.cache.V)):
            old, new = chain.coerce(chain.given(cache), news[name])
            steps.append(
                chain.step(
                    Arrange,
                    name,
                    np.concatenate([old, new], axis=0),
                    title={"K": "Keys, the cache extended", "V": "Values, the cache extended"}[name],
                    formula=f"{name} = [{name}_cache; {name}_new]",
                    latex=rf"{name} = \begin{{bmatrix}} {name}_{{cache}} \\ {name}_{{new}} \end{{bmatrix}}",
                    symbol=name,
                    rows=keys,
                    source=f"{row_range(1, t)}: the cache; {row_range(t + 1, t + n)}: the new tokens",
                    explain="A KV cache keeps the earlier tokens' keys and values: only the new rows are projected.",
                )
            )
            full = steps[-1].value
            KV[name] = full
        K, V = KV["K"], KV["V"]
    else:
        K = _project(chain, steps, "K", src, src_name, mh.W["W_K"], mh.b.get("b_K"), keys, "Keys")
        V = _project(chain, steps, "V", src, src_name, mh.W["W_V"], mh.b.get("b_V"), keys, "Values")
    m = K.shape[0]
    k_pos = list(range(m))

    outputs = []
    for j in range(1, H + 1):
        g = (j - 1) // (H // G) + 1
        Qj = _block(chain, steps, f"head.{j}.Q", Q, j, d_k, tok, f"columns {_cols(j, d_k)} of Q")
        kv_note = f" (key/value head {g} of {G}, shared by query heads {_group(g, H // G)})" if G != H else ""
        Kj = _block(chain, steps, f"head.{j}.K", K, g, d_k, keys, f"columns {_cols(g, d_k)} of K{kv_note}")
        Vj = _block(chain, steps, f"head.{j}.V", V, g, d_v, keys, f"columns {_cols(g, d_v)} of V{kv_note}")
        qs, ks = f"Q_{j}", f"K_{j}"
        if mh.positions == "rope":
            Qj, Kj = rope_steps(p, chain, steps, j, Qj, Kj, q_pos, k_pos, tok, keys)
            qs, ks = f"Q̃_{j}", f"K̃_{j}"
        steps.append(
            chain.step(
                Product,
                f"head.{j}.scores",
                chain.matmul(Qj, Kj.T),
                title=f"Head {j}: scores",
                formula=f"S = {qs} {ks}ᵀ  (S_ik = q_i · k_k)",
                latex=rf"S = {_tex(qs)} {_tex(ks)}^\top",
                symbol="S",
                rows=tok,
                cols=keys,
                left=Qj,
                right=Kj.T,
                explain=f"Entry (i, k) is the dot product of query i with key k, in head {j}'s {d_k} columns.",
                note="With RoPE, rotated q_i · rotated k_k = q_i · (k_k turned by the angle of position k − i): the "
                "positions enter only through their distance, so the same two tokens score the same wherever "
                "they stand."
                if mh.positions == "rope"
                else "",
            )
        )
        S = steps[-1].value
        sym = "S"
        if p.score == "scaled-dot":
            scale_d, d_name = (mh.X.shape[1], "d_model") if chain.mistake == "sqrt_d_model" else (d_k, "d_k")
            step, S = sqrt_dk_step(
                chain, S, scale_d, ("S'", "S", "S'"), tok, keys, step_id=f"head.{j}.scaled_scores", d_name=d_name
            )
            steps.append(_retitle(step, j))
            sym = "S'"
        if mh.positions == "alibi":
            B, written = pos.alibi_bias(chain, j, mh.heads, q_pos, k_pos, mh.alibi)
            a_exp, b_exp = pos.alibi_exponent(j, mh.heads, mh.alibi)
            steps.append(
                chain.step(
                    Formula,
                    f"head.{j}.bias",
                    B,
                    title=f"Head {j}: ALiBi bias",
                    formula=f"b_ik = −m_{j}·|i − k|, m_{j} = {pos.alibi_slope_text(j, mh.heads, mh.alibi)} (positions from 0)",
                    latex=rf"b_{{ik}} = -m_{j} |i - k|,\ m_{j} = 2^{{-{a_exp}/{b_exp}}}",
                    symbol="b",
                    rows=tok,
                    cols=keys,
                    written=tuple(tuple(str(x) for x in row) for row in written),
                    explain="ALiBi penalises a key by its distance from the query; each head has its own slope. "
                    + pos.alibi_note(mh.heads, mh.alibi)
                    + "Positions i, k count from 0; entries [r,c] count rows and columns from 1.",
                )
            )
            B = steps[-1].value
            S0, B0 = chain.coerce(S, B)
            new_sym = "S''" if sym == "S'" else "S'"
            steps.append(
                chain.step(
                    Add,
                    f"head.{j}.biased_scores",
                    S0 + B0,
                    title=f"Head {j}: scores with the bias",
                    formula=f"{new_sym}_ik = {sym}_ik + b_ik",
                    latex=rf"{new_sym}_{{ik}} = {sym}_{{ik}} + b_{{ik}}",
                    symbol=new_sym,
                    rows=tok,
                    cols=keys,
                    parts=(S0, B0),
                    part_names=(sym, "b"),
                    explain="The bias is added after the scaling, before the mask and the softmax.",
                )
            )
            S = steps[-1].value
            sym = new_sym
        offset = 0 if mh.mask_text == "causal-top-left" else K.shape[0] - n  # where the window is aligned
        allowed = sliding_window.allowed(chain, mh.allowed, mh.window, offset, mh.key_padding)
        late = chain.mistake == "mask_after_softmax"
        if allowed is not None and not late:
            before = S
            steps.append(
                chain.step(
                    Mask,
                    f"head.{j}.masked_scores",
                    apply_mask(S, allowed),
                    title=f"Head {j}: masked scores",
                    formula=f"−∞ where query i may not attend key k ({_mask_words(p)})",
                    latex=r"S_{ik} = -\infty \text{ where } M_{ik} = 0",
                    symbol=sym,
                    rows=tok,
                    cols=keys,
                    arg=before,
                    allowed=allowed,
                    explain="A masked score becomes −∞: its exponential is 0, so the key gets no weight.",
                )
            )
            S = steps[-1].value
        elif late and allowed is None:
            raise MistakeNotApplicable
        names = SoftmaxNames(
            exps_id=f"head.{j}.exponentials",
            sum_id=f"head.{j}.exp_sum",
            out_id=f"head.{j}.weights",
            arg=sym,
            out="A",
            out_title=f"Head {j}: attention weights (row-wise softmax)",
        )
        soft, A = softmax_steps(chain, S, names, p.settings.shift_max, tok, keys)
        if late and allowed is not None:  # (a late mask without one is not applicable: raised above)
            A = chain.finish(f"head.{j}.weights", np.where(allowed, A, 0.0 if not is_exact(A) else 0))
        for s in soft:
            steps.append(_retitle(s, j))
        steps.append(
            chain.step(
                Product,
                f"head.{j}.output",
                chain.matmul(A, Vj),
                title=f"Head {j}: output",
                formula=f"O_{j} = A_{j} V_{j}  (row i: Σ_k A_ik v_k)",
                latex=rf"O_{j} = A_{j} V_{j}",
                symbol=f"O_{j}",
                rows=tok,
                left=A,
                right=Vj,
                explain="Each row is the weighted average of the head's value rows, weighted by that row of A.",
            )
        )
        out_j = steps[-1].value
        outputs.append(out_j)
    order = outputs[::-1] if chain.mistake == "heads_reversed" and H > 1 else outputs
    if chain.mistake == "heads_reversed" and H == 1:
        raise MistakeNotApplicable
    steps.append(
        chain.step(
            Arrange,
            "concat",
            np.concatenate(chain.coerce(*order), axis=1),
            title="Heads side by side",
            formula="concat = [O_1 … O_h]" if H > 2 else ("concat = [O_1 O_2]" if H == 2 else "concat = O_1"),
            latex=r"\mathrm{concat} = [O_1\ \cdots\ O_h]",
            symbol="C",
            rows=tok,
            source=", ".join(f"columns {_cols(j, d_v)}: head {j}" for j in range(1, H + 1)),
            explain="The heads' outputs, one block of d_v columns each, in head order.",
        )
    )
    cat = steps[-1].value
    if "W_O" in mh.W:
        if chain.mistake == "no_W_O":
            chain.finish("output", cat)
            return steps
        W_O = chain.given(mh.W["W_O"])
        b_O = chain.given(mh.b["b_O"]) if "b_O" in mh.b else None
        out = chain.matmul(cat, W_O)
        if b_O is not None:
            out, b_O = chain.coerce(out, b_O)
            out = out + b_O[None, :]
        steps.append(
            chain.step(
                Product,
                "output",
                out,
                title="Output projection",
                formula="output = concat W_O" + (" + b_O" if b_O is not None else ""),
                latex=r"\mathrm{output} = \mathrm{concat}\, W_O" + (" + b_O" if b_O is not None else ""),
                symbol="Y",
                rows=tok,
                left=cat,
                right=W_O,
                bias=b_O,
                explain="W_O mixes the heads back into d_model columns.",
            )
        )
    elif chain.mistake == "no_W_O":
        raise MistakeNotApplicable
    return steps


def _project(
    chain: Chain,
    steps: list[Step],
    name: str,
    X: np.ndarray,
    x_name: str,
    W: object,
    b: object,
    rows: tuple[str, ...],
    title: str,
) -> np.ndarray:
    Wm = chain.weight(W)  # type: ignore[arg-type]  # (transposed under w_transposed, as in self-attention)
    bias = chain.given(b) if b is not None else None  # type: ignore[arg-type]
    out = chain.matmul(X, Wm)
    if bias is not None:
        out, bias = chain.coerce(out, bias)
        out = out + bias[None, :]
    letter = name[0]
    formula = f"{name} = {x_name} W_{letter}" + (f" + b_{letter}" if bias is not None else "")
    steps.append(
        chain.step(
            Product,
            name,
            out,
            title=title,
            formula=formula,
            latex=formula.replace("X_pos", "X_{pos}").replace("_new", "_{new}"),
            symbol=name,
            rows=rows,
            left=X,
            right=Wm,
            bias=bias,
            explain=f"Row i of {name} is row i of {x_name} times W_{letter}: every head's columns at once.",
        )
    )
    done: np.ndarray = steps[-1].value
    return done


def _block(
    chain: Chain, steps: list[Step], step_id: str, M: np.ndarray, j: int, width: int, rows: tuple[str, ...], source: str
) -> np.ndarray:
    letter = step_id.split(".")[-1]
    head = step_id.split(".")[1]
    steps.append(
        chain.step(
            Arrange,
            step_id,
            M[:, (j - 1) * width : j * width],
            title=f"Head {head}: {({'Q': 'queries', 'K': 'keys', 'V': 'values'})[letter]}",
            formula=f"{letter}_{head} = {source}",
            latex=rf"{letter}_{head}",
            symbol=f"{letter}_{head}",
            rows=rows,
            source=source,
            explain="A head works on its own block of columns: nothing is computed here.",
        )
    )
    done: np.ndarray = steps[-1].value
    return done


def _retitle(s: Step, j: int) -> Step:
    import dataclasses

    if s.title.startswith("Head "):
        return s
    return dataclasses.replace(s, title=f"Head {j}: {s.title[0].lower()}{s.title[1:]}")


def _mask_words(p: Problem) -> str:
    mh = p.payload(MultiHead)
    bits = []
    if mh.mask_text == "causal":
        bits.append("causal: query i sees keys up to its own position")
    elif mh.mask_text == "causal-top-left":
        bits.append("causal, top-left: query i sees keys 1..i")
    elif mh.mask is not None:
        bits.append("the given mask, 1 = may attend")
    if mh.window is not None:
        bits.append(sliding_window.words(mh.window))
    if mh.key_padding is not None:
        bits.append("key padding: 0 = a padding position")
    return "; ".join(bits)


def _cols(j: int, width: int) -> str:
    a, b = (j - 1) * width + 1, j * width
    return f"{a}–{b}" if b > a else f"{a}"


def _group(g: int, size: int) -> str:
    first = (g - 1) * size + 1
    return ", ".join(str(first + k) for k in range(size))


def _tex(symbol: str) -> str:
    return symbol.replace("Q̃", r"\tilde Q").replace("K̃", r"\tilde K")
