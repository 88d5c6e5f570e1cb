"""Kind ``multi-head`` (Vaswani et al. 2017; PyTorch's nn.MultiheadAttention), row convention.

Q = X W_Q + b_Q, K = X W_K + b_K (memory W_K in cross-attention; the cached rows first with a cache),
V likewise; head j takes its block of d_k columns of Q (and of K and V, or of its group's key/value
head with kv_heads), scores Q_j K_jᵀ / √d_k (d_k of the head), masks, row-wise softmax, A_j V_j;
the heads side by side, then W_O.
"""

from __future__ import annotations

import numpy as np

from ..derivation import Arrange, Input, Product, Step
from ..derivation.arith import Chain, MistakeNotApplicable
from ..parse import Problem
from ..parse.types import MultiHead
from .multihead_head import HeadBlocks, head_attention
from .multihead_positions import position_steps, rope_steps, row_range


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
    q_pos = [mh.t + i for i in range(n)]
    steps: list[Step] = []
    X = chain.given(mh.X) if X_in is None else X_in
    M = (chain.given(mh.memory) if mh.memory is not None else None) if M_in is None else M_in
    X, M = position_steps(p, chain, X, M, q_pos, tok, steps)
    H, G, d_k, d_v = _sizes(mh, chain)
    src = M if M is not None else X
    src_name = "M" if M is not None else ("X_pos" if mh.positions in ("sinusoidal", "learned") else "X")
    x_name = "X_pos" if mh.positions in ("sinusoidal", "learned") else "X"
    Q = _project(chain, steps, "Q", X, x_name, mh.W["W_Q"], mh.b.get("b_Q"), tok, "Queries")
    if mh.cache is not None:
        K, V = _cached_keys_values(mh, chain, steps, X, x_name, tok, n)
    else:
        K = _project(chain, steps, "K", src, src_name, mh.W["W_K"], mh.b.get("b_K"), keys, "Keys")
        V = _project(chain, steps, "V", src, src_name, mh.W["W_V"], mh.b.get("b_V"), keys, "Values")
    k_pos = list(range(K.shape[0]))
    outputs = []
    for j in range(1, H + 1):
        h = _blocks(p, chain, steps, j, (H, G, d_k, d_v), (Q, K, V), tok, q_pos, k_pos)
        outputs.append(head_attention(p, chain, steps, h, d_k, tok, keys, q_pos, k_pos))
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
    _output_projection(mh, chain, steps, steps[-1].value, tok)
    return steps


def _sizes(mh: MultiHead, chain: Chain) -> tuple[int, int, int, int]:
    """Query heads, key/value heads, d_k and d_v (one wide head under the one_head mistake)."""
    H, G = mh.heads, mh.kv_heads
    d_k, d_v = mh.d_k, mh.d_v
    if chain.mistake == "one_head":
        if H == 1 or G != H:
            raise MistakeNotApplicable
        H, G, d_k, d_v = 1, 1, H * d_k, H * d_v
    return H, G, d_k, d_v


def _cached_keys_values(
    mh: MultiHead, chain: Chain, steps: list[Step], X: np.ndarray, x_name: str, tok: tuple[str, ...], n: int
) -> tuple[np.ndarray, np.ndarray]:
    """With a KV cache: the new tokens' keys and values projected, then appended to the cache's."""
    assert mh.cache is not None
    t = mh.t
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
                rows=mh.key_labels,
                source=f"{row_range(1, t)}: the cache; {row_range(t + 1, t + n)}: the new tokens",
                explain="A KV cache keeps the earlier tokens' keys and values: only the new rows are projected.",
            )
        )
        KV[name] = steps[-1].value
    return KV["K"], KV["V"]


def _blocks(
    p: Problem,
    chain: Chain,
    steps: list[Step],
    j: int,
    sizes: tuple[int, int, int, int],
    qkv: tuple[np.ndarray, np.ndarray, np.ndarray],
    tok: tuple[str, ...],
    q_pos: list[int],
    k_pos: list[int],
) -> HeadBlocks:
    """Head j's columns of Q, K and V (a key/value head shared by a group of query heads), turned by
    RoPE when the problem uses it."""
    mh = p.payload(MultiHead)
    keys = mh.key_labels
    H, G, d_k, d_v = sizes
    Q, K, V = qkv
    g = (j - 1) // (H // G) + 1
    Qj = _block(chain, steps, f"head.{j}.Q", Q, j, d_k, tok, f"columns {_cols(j, d_k)} of Q")
    kv_note = f" (key/value head {g} of {G}, shared by query heads {_group(g, H // G)})" if G != H else ""
    Kj = _block(chain, steps, f"head.{j}.K", K, g, d_k, keys, f"columns {_cols(g, d_k)} of K{kv_note}")
    Vj = _block(chain, steps, f"head.{j}.V", V, g, d_v, keys, f"columns {_cols(g, d_v)} of V{kv_note}")
    if mh.positions == "rope":
        Qj, Kj = rope_steps(p, chain, steps, j, Qj, Kj, q_pos, k_pos, tok, keys)
        return HeadBlocks(j, Qj, Kj, Vj, f"Q̃_{j}", f"K̃_{j}")
    return HeadBlocks(j, Qj, Kj, Vj, f"Q_{j}", f"K_{j}")


def _output_projection(mh: MultiHead, chain: Chain, steps: list[Step], cat: np.ndarray, tok: tuple[str, ...]) -> None:
    """W_O (and b_O) over the concatenated heads, when the problem gives W_O."""
    if "W_O" not in mh.W:
        if chain.mistake == "no_W_O":
            raise MistakeNotApplicable
        return
    if chain.mistake == "no_W_O":
        chain.finish("output", cat)
        return
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


def _cols(j: int, width: int) -> str:
    a, b = (j - 1) * width + 1, j * width
    return f"{a}–{b}" if b > a else f"{a}"


def _group(g: int, size: int) -> str:
    first = (g - 1) * size + 1
    return ", ".join(str(first + k) for k in range(size))


def header(p: Problem) -> list[str]:
    mh = p.payload(MultiHead)
    bits = [p.kind, f"{mh.heads} heads of d_k = {mh.d_k}"]
    if mh.kv_heads != mh.heads:
        bits.append(f"{mh.kv_heads} key/value head{'s' if mh.kv_heads > 1 else ''} (grouped-query)")
    bits.append("cross-attention over memory" if mh.memory is not None else "self-attention")
    if mh.t:
        bits.append(f"KV cache of {mh.t} tokens")
    if mh.positions:
        bits.append(f"{mh.positions} positions" + (f" ({mh.rope} pairs)" if mh.positions == "rope" else ""))
    bits.append(f"{p.score} score")
    return bits
