"""Kind ``transformer-layer`` (Vaswani et al. 2017; PyTorch's nn.TransformerEncoderLayer and
nn.TransformerDecoderLayer with dropout 0), row convention.

Post-norm (the paper, PyTorch's default): x ← LayerNorm(x + Sublayer(x)) for each sublayer; pre-norm:
x ← x + Sublayer(LayerNorm(x)), and the output is the last residual sum. An encoder's sublayers are
self-attention and the feed-forward network; a decoder's are masked self-attention, cross-attention
over ``memory`` (keys and values from the memory as given) and the feed-forward network. The attention
sublayers are kind multi-head's mechanism, their step ids under ``self.`` and ``cross.``. LayerNorm
over each row: the mean, the biased variance (divide by d_model), (x − mean)/√(variance + ε), γ and β.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..derivation import Add, Arrange, Formula, Input, Step
from ..derivation.arith import Chain, MistakeNotApplicable
from ..derivation.fmt import fmt
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse import Problem
from ..parse.types import Layer
from . import layer_modern as modern
from . import multihead
from .common import NoKeyToAttend
from .layer_ffn import ffn
from .layer_written import Lazy as _Lazy
from .layer_written import num as _num
from .layer_written import paren as _paren
from .layer_written import sub as _sub


def inputs(p: Problem) -> list[Input]:
    L = p.payload(Layer)
    tok = _tokens(p)
    out = [Input("X", "X", L.X.floats, None, rows=tok, role="the layer's input rows")]
    if L.memory is not None and L.cross is not None:
        out.append(Input("memory", "M", L.memory.floats, None, rows=L.cross.key_labels, role="the encoder's rows"))
    for name, mh in (("self_attention", L.self_attn), ("cross_attention", L.cross)):
        if mh is None:
            continue
        for key, g in {**mh.W, **mh.b}.items():
            out.append(Input(f"{name}.{key}", f"{key} ({name.split('_')[0]})", g.floats, None, role=f"{name}"))
    gate = " (SwiGLU's gate)" if L.swiglu is not None else ""
    out.append(Input("ffn.W_1", "W_1", L.W_1.floats, None, role=f"feed-forward{gate}: d_model × d_ff"))
    if L.b_1 is not None:
        out.append(Input("ffn.b_1", "b_1", L.b_1.floats, None, role="feed-forward bias"))
    if L.swiglu is not None:
        out.append(Input("ffn.W_3", "W_3", L.swiglu.W_3.floats, None, role="SwiGLU's up projection: d_model × d_ff"))
        if L.swiglu.b_3 is not None:
            out.append(Input("ffn.b_3", "b_3", L.swiglu.b_3.floats, None, role="SwiGLU's up-projection bias"))
    out.append(Input("ffn.W_2", "W_2", L.W_2.floats, None, role="feed-forward: d_ff × d_model"))
    if L.b_2 is not None:
        out.append(Input("ffn.b_2", "b_2", L.b_2.floats, None, role="feed-forward bias"))
    for k, (gamma, beta) in enumerate(L.norms, 1):
        if L.normalization == "rms" and np.any(gamma.floats != 1):
            out.append(Input(f"norm{k}.gamma", f"γ{k}", gamma.floats, None, role=f"RMSNorm {k}'s scale"))
        elif L.normalization != "rms" and (np.any(gamma.floats != 1) or np.any(beta.floats != 0)):
            out.append(Input(f"norm{k}.gamma", f"γ{k}", gamma.floats, None, role=f"LayerNorm {k}'s scale"))
            out.append(Input(f"norm{k}.beta", f"β{k}", beta.floats, None, role=f"LayerNorm {k}'s shift"))
    return out


def _tokens(p: Problem) -> tuple[str, ...]:
    return p.tokens or tuple(f"x{i + 1}" for i in range(p.payload(Layer).X.shape[0]))


class _Prefixed(Chain):
    """The chain a sublayer runs in: every step id it finishes is prefixed ("self." + "head.1.weights")."""

    def __init__(self, inner: Chain, prefix: str) -> None:  # no Chain state of its own: all of it is inner's
        self.__dict__["_inner"] = inner
        self.__dict__["_prefix"] = prefix

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_inner"], name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.__dict__["_inner"], name, value)

    def finish(self, step_id: str, x: np.ndarray) -> np.ndarray:
        inner: Chain = self.__dict__["_inner"]
        return inner.finish(self.__dict__["_prefix"] + step_id, x)


def run(p: Problem, chain: Chain) -> list[Step]:
    L = p.payload(Layer)
    tok = _tokens(p)
    pre = (L.norm == "pre") != (chain.mistake == "norm_swapped")
    x = chain.given(L.X)
    M = chain.given(L.memory) if L.memory is not None else None
    steps: list[Step] = []
    subs: list[tuple[str, Any]] = [("self", L.self_attn)]
    if L.cross is not None:
        subs.append(("cross", L.cross))
    subs.append(("ffn", None))
    names = {"self": "masked self-attention" if L.cross is not None else "self-attention", "cross": "cross-attention"}
    names["ffn"] = "feed-forward network"
    for k, (name, mh) in enumerate(subs, 1):
        start = len(steps)
        h = _norm(p, chain, steps, k, x, tok) if pre else x
        if mh is not None:
            sub_p = dataclasses.replace(p, kind="multi-head", data=mh, score="scaled-dot")
            try:
                sub = multihead.run(sub_p, _Prefixed(chain, f"{name}."), X_in=h, M_in=M if name == "cross" else None)
            except NoKeyToAttend as exc:  # the step as this layer names it
                raise NoKeyToAttend(f"{name}.{exc.step_id}", exc.row, exc.what) from None
            title = names[name][0].upper() + names[name][1:]
            steps += [dataclasses.replace(s, id=f"{name}.{s.id}", title=f"{title} · {s.title}") for s in sub]
            out = np.asarray(sub[-1].value)  # the sublayer's output (or, with W_O left out, its concatenation)
        else:
            up = L.swiglu
            out = modern.swiglu(p, chain, steps, h, tok, up) if up is not None else ffn(p, chain, steps, h, tok)
        x0, out0 = chain.coerce(x, out)
        r = out0 if chain.mistake == "residual_left_out" else x0 + out0
        sub_name = f"{name}.output"
        steps.append(
            chain.step(
                Add,
                f"residual{k}",
                np.asarray(r, dtype=x0.dtype),
                title=f"Residual sum {k}",
                formula=f"r{k} = x + {sub_name}",
                latex=rf"r_{k} = x + \mathrm{{{name}}}",
                symbol=f"r{k}",
                rows=tok,
                parts=(x0, out0),
                part_names=("x", sub_name),
                explain="The residual connection adds the sublayer's input back to its output, row by row.",
            )
        )
        res = steps[-1].value
        x = res
        if not pre:
            x = _norm(p, chain, steps, k, res, tok)
        where = "before" if pre else "after"
        steps[start] = dataclasses.replace(
            steps[start],
            intro=f"Sublayer {k} of {len(subs)}: {names[name]}, the residual sum, {_norm_name(L)} {k} {where} it.",
        )
    steps.append(
        chain.step(
            Arrange,
            "output",
            x,
            title="The layer's output",
            formula=f"output = {'r' if pre else f'norm{len(subs)}.output'}{len(subs) if pre else ''}",
            latex=r"\mathrm{output}",
            symbol="Y",
            rows=tok,
            source=f"pre-norm: the last residual sum r{len(subs)} (no final {_norm_name(L)}, as in PyTorch's norm_first layer)"
            if pre
            else f"post-norm: the output of {_norm_name(L)} {len(subs)}",
            explain="One row per token, d_model wide: the input of the next layer.",
        )
    )
    steps[0] = dataclasses.replace(steps[0], intro=_outline(p, names, subs) + "\n" + steps[0].intro)
    return steps


def _outline(p: Problem, names: dict[str, str], subs: list[tuple[str, Any]]) -> str:
    L = p.payload(Layer)
    kind = "Decoder" if L.cross is not None else "Causal" if L.self_attn.mask_text == "causal" else "Encoder"
    parts = []
    for k, (name, _) in enumerate(subs, 1):
        parts.append(
            f"{k}. r{k} = x + {names[name]}(norm{k}(x)), x = r{k}"
            if L.norm == "pre"
            else f"{k}. x = norm{k}(x + {names[name]}(x))"
        )
    return f"Outline ({kind.lower()} layer, {L.norm}-norm): " + "; ".join(parts) + "."


def _norm_name(L: Any) -> str:
    return "RMSNorm" if L.normalization == "rms" else "LayerNorm"


def _norm(p: Problem, chain: Chain, steps: list[Step], k: int, x: np.ndarray, tok: tuple[str, ...]) -> np.ndarray:
    """Norm k of the layer: LayerNorm, or RMSNorm (γ only) with settings.normalization = "rms"."""
    L = p.payload(Layer)
    if L.normalization == "rms":
        return modern.rms_norm(chain, steps, k, x, L.norms[k - 1][0], L.eps, tok)
    return _layer_norm(chain, steps, k, x, L.norms[k - 1], L.eps, tok)


def _layer_norm(
    chain: Chain,
    steps: list[Step],
    k: int,
    x: np.ndarray,
    gb: tuple[Any, Any],
    eps_node: Any,
    tok: tuple[str, ...],
) -> np.ndarray:
    dec = chain.decimals
    n, d = x.shape
    axis = 0 if chain.mistake == "norm_wrong_axis" else 1
    if axis == 0 and n == 1:
        raise MistakeNotApplicable
    width = x.shape[axis]
    lines = [x[i, :] for i in range(n)] if axis == 1 else [x[:, j] for j in range(d)]
    rows = tok if axis == 1 else None
    steps.append(
        chain.step(
            Formula,
            f"norm{k}.mean",
            np.asarray([sum(v.tolist()) / width for v in lines], dtype=x.dtype),
            title=f"LayerNorm {k}: mean of each row",
            formula=f"μ_i = (1/d_model) Σ_j x_ij, d_model = {d}",
            latex=rf"\mu_i = \frac{{1}}{{{d}}} \sum_j x_{{ij}}",
            symbol="μ",
            rows=rows,
            written=_Lazy(
                lambda i, dec: f"({' + '.join(_num(v, dec) for v in lines[i[0]])}) / {width}".replace("+ -", "- "),
                1,
                dec,
            ),
            explain="LayerNorm normalises each token's row on its own, over its d_model features.",
        )
    )
    mean = steps[-1].value
    denom = width - 1 if chain.mistake == "unbiased_variance" else width
    if denom == 0:
        raise MistakeNotApplicable
    steps.append(
        chain.step(
            Formula,
            f"norm{k}.variance",
            np.asarray([sum(((v - m) ** 2).tolist()) / denom for v, m in zip(lines, mean, strict=True)], dtype=x.dtype),
            title=f"LayerNorm {k}: variance of each row",
            formula=f"σ²_i = (1/d_model) Σ_j (x_ij − μ_i)²  (biased: divide by d_model = {d}, not {d - 1})",
            latex=rf"\sigma^2_i = \frac{{1}}{{{d}}} \sum_j (x_{{ij}} - \mu_i)^2",
            symbol="σ²",
            rows=rows,
            written=_Lazy(
                lambda i, dec: (
                    "("
                    + " + ".join(f"({_num(v, dec)} − {_sub(mean[i[0]], dec)})²" for v in lines[i[0]])
                    + f") / {denom}"
                ),
                1,
                dec,
            ),
            explain="The mean squared distance from the mean, over the row: LayerNorm divides by d_model.",
        )
    )
    var = steps[-1].value
    eps = chain.number(lambda: to_exact(eps_node), node_float(eps_node))
    eps_text = fmt(node_float(eps_node), 12)
    root = chain.sqrt(np.asarray(var + eps, dtype=var.dtype))
    xn = (x - mean[:, None]) / root[:, None] if axis == 1 else (x - mean[None, :]) / root[None, :]

    def at(a: np.ndarray, i: int, j: int) -> Any:
        return a[i] if axis == 1 else a[j]

    steps.append(
        chain.step(
            Formula,
            f"norm{k}.normalized",
            np.asarray(xn, dtype=x.dtype),
            title=f"LayerNorm {k}: normalised",
            formula=f"z_ij = (x_ij − μ_i) / √(σ²_i + ε), ε = {eps_text}",
            latex=r"z_{ij} = \frac{x_{ij} - \mu_i}{\sqrt{\sigma^2_i + \varepsilon}}",
            symbol="z",
            rows=tok,
            written=_Lazy(
                lambda ij, dec: (
                    f"({_num(x[ij], dec)} − {_sub(at(mean, *ij), dec)}) / √({_num(at(var, *ij), dec)} + {eps_text})"
                ),
                2,
                dec,
            ),
            explain="Each row now has mean 0 and variance about 1 (ε keeps the root away from 0).",
        )
    )
    xn = steps[-1].value
    gamma, beta = chain.coerce(chain.given(gb[0]), chain.given(gb[1]))
    xn_c, gamma = chain.coerce(xn, gamma)
    xn_c, beta = chain.coerce(xn_c, beta)
    steps.append(
        chain.step(
            Formula,
            f"norm{k}.output",
            np.asarray(xn_c * gamma[None, :] + beta[None, :], dtype=xn_c.dtype),
            title=f"LayerNorm {k}: scaled and shifted",
            formula="y_ij = γ_j z_ij + β_j",
            latex=r"y_{ij} = \gamma_j z_{ij} + \beta_j",
            symbol=f"n{k}",
            rows=tok,
            written=_Lazy(
                lambda ij, dec: f"{_num(gamma[ij[1]], dec)}·{_paren(_num(xn_c[ij], dec))} + {_num(beta[ij[1]], dec)}",
                2,
                dec,
            ),
            explain="γ and β are learned per feature; with γ = 1 and β = 0 this step changes nothing.",
            defines=(
                f"γ_j and β_j the gain and shift of feature j: γ = [{', '.join(_num(g, dec) for g in gamma)}], "
                f"β = [{', '.join(_num(b, dec) for b in beta)}]",
            ),
        )
    )
    y: np.ndarray = steps[-1].value
    return y


def header(p: Problem) -> list[str]:
    ly = p.payload(Layer)
    mh = ly.self_attn
    causal = mh.mask_text == "causal"  # an encoder-shaped layer with a causal mask: a decoder-only block
    kind = "decoder-only layer (causal)" if causal else "encoder layer"
    bits = [p.kind, "decoder layer (cross-attention over memory)" if ly.cross is not None else kind]
    bits.append(
        f"{mh.heads} heads of d_k = {mh.d_k}" + (f", {mh.kv_heads} key/value" if mh.kv_heads != mh.heads else "")
    )
    if mh.window is not None:
        bits.append(f"window {mh.window}")
    if mh.positions in ("rope", "alibi"):
        bits.append(mh.positions)
    bits.append(f"{ly.norm}-norm" + (", RMSNorm" if ly.normalization == "rms" else ""))
    bits.append(f"FFN d_ff = {ly.W_1.shape[1]}, {ly.activation}")
    return bits
