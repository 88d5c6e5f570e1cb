"""Numpy oracles for the recurrent cells and seq2seq, written from the papers' formulas (not from
attncalc's mechanisms), reading a problem table in any of its layouts.

``slip`` switches on one named mistake, written here as its own formula, so that a test can build an
answers file "with the slip" independently of attncalc's switches.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

ORDER = {"pytorch": {"lstm": "ifgo", "gru": "rzn", "rnn": "h"}, "keras": {"lstm": "ifgo", "gru": "zrn", "rnn": "h"}}
GATE_KEYS = {
    "lstm": {"i": ("W_i", "b_i"), "f": ("W_f", "b_f"), "g": ("W_c", "b_c"), "o": ("W_o", "b_o")},
    "gru": {"r": ("W_r", "b_r"), "z": ("W_z", "b_z"), "n": ("W_h", "b_h")},
    "rnn": {"h": ("W", "b")},
}


def num(x: Any) -> Any:
    """Numbers of a problem table as floats (strings such as "1/4" too)."""
    if isinstance(x, list):
        return np.array([num(v) for v in x], dtype=float)
    return float(Fraction(x)) if isinstance(x, str) else float(x)


def sig(v: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-v))


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())
    return e / e.sum()


def canonical(kind: str, t: dict[str, Any], layout: str) -> dict[str, dict[str, np.ndarray]]:
    """Per gate: Wh (d_h × d_h), Wx (d_h × d_x), bx, bh, from any layout."""
    out: dict[str, dict[str, np.ndarray]] = {}
    if layout == "gates":
        for g, (wk, bk) in GATE_KEYS[kind].items():
            W = num(t[wk])
            d_h = W.shape[0]
            b = num(t[bk]) if bk in t else np.zeros(d_h)
            bh = num(t["b_hn"]) if (g == "n" and "b_hn" in t) else np.zeros(d_h)
            out[g] = {"Wh": W[:, :d_h], "Wx": W[:, d_h:], "bx": b, "bh": bh}
        return out
    order = ORDER[layout][kind]
    if layout == "pytorch":
        Wi, Wh = num(t["weight_ih"]), num(t["weight_hh"])
        bi = num(t["bias_ih"]) if "bias_ih" in t else np.zeros(Wi.shape[0])
        bh = num(t["bias_hh"]) if "bias_hh" in t else np.zeros(Wi.shape[0])
    else:
        Wi, Wh = num(t["kernel"]).T, num(t["recurrent_kernel"]).T
        bias = num(t["bias"]) if "bias" in t else np.zeros(Wi.shape[0])
        bi, bh = (bias[0], bias[1]) if bias.ndim == 2 else (bias, np.zeros_like(bias))
    d_h = Wh.shape[1]
    for k, g in enumerate(order):
        sl = slice(k * d_h, (k + 1) * d_h)
        out[g] = {"Wh": Wh[sl], "Wx": Wi[sl], "bx": bi[sl], "bh": bh[sl]}
    return out


def cell(
    kind: str,
    P: dict[str, dict[str, np.ndarray]],
    x: np.ndarray,
    h: np.ndarray,
    c: np.ndarray | None,
    reset: str = "after",
    update: str = "keep",
    slip: str | None = None,
) -> dict[str, np.ndarray]:
    """One step: every intermediate by the step id's last part (f, c, h, h_tilde, ...)."""
    v: dict[str, np.ndarray] = {}
    hx = np.r_[x, h] if slip == "hx_swapped" else np.r_[h, x]
    v["hx"] = hx

    def pre(g: str, inp: np.ndarray) -> np.ndarray:
        W = np.hstack([P[g]["Wh"], P[g]["Wx"]])  # columns for [h; x], whatever the slip fed them
        b = 0 if slip == "no_bias" else P[g]["bx"] + P[g]["bh"]
        return W @ inp + b

    gate = (lambda z: np.tanh(z)) if slip == "tanh_for_sigmoid" else sig
    cand = sig if slip == "sigmoid_for_tanh" else np.tanh
    if kind == "rnn":
        v["h_pre"] = pre("h", hx)
        v["h"] = cand(v["h_pre"])
        return v
    if kind == "lstm":
        assert c is not None
        for g, name in (("f", "f"), ("i", "i"), ("g", "c_tilde"), ("o", "o")):
            v[name + "_pre"] = pre(g, hx)
            v[name] = cand(v[name + "_pre"]) if g == "g" else gate(v[name + "_pre"])
        v["retained"] = c if slip == "forget_not_applied" else v["f"] * c
        v["new"] = v["i"] * v["c_tilde"]
        v["c"] = v["retained"] + v["new"]
        v["tanh_c"] = np.tanh(v["c"])
        v["h"] = v["o"] * (v["c"] if slip == "no_tanh_c" else v["tanh_c"])
        return v
    for g in ("r", "z"):
        v[g + "_pre"] = pre(g, hx)
        v[g] = gate(v[g + "_pre"])
    r, z = v["r"], v["z"]
    if slip == "reset_swapped":
        reset = "before" if reset == "after" else "after"
    b_in = 0 if slip == "no_bias" else P["n"]["bx"]
    b_hn = 0 if slip == "no_bias" else P["n"]["bh"]
    if reset == "before":
        rhx = np.r_[x, r * h] if slip == "hx_swapped" else np.r_[r * h, x]
        v["h_tilde_pre"] = np.hstack([P["n"]["Wh"], P["n"]["Wx"]]) @ rhx + b_in + b_hn
    else:
        v["xn"] = P["n"]["Wx"] @ x + b_in
        v["hn"] = P["n"]["Wh"] @ h + b_hn
        v["h_tilde_pre"] = v["xn"] + r * v["hn"]
    v["h_tilde"] = cand(v["h_tilde_pre"])
    keep = (update == "keep") != (slip == "gru_update_swapped")
    v["h"] = (1 - z) * v["h_tilde"] + z * h if keep else z * v["h_tilde"] + (1 - z) * h
    return v


def output(W_out: np.ndarray, u: np.ndarray, target: int | None, slip_row: int | None = None) -> dict[str, Any]:
    z = W_out @ u
    p = softmax(z)
    out: dict[str, Any] = {"logits": z, "probabilities": p, "prediction": int(np.argmax(p))}
    if target is not None:
        k = target if slip_row is None else slip_row
        out["loss"] = -np.log(p[k])
        y = np.zeros(len(p))
        y[k] = 1
        out["grad_logits"] = p - y
    return out


def run_recurrent(raw: dict[str, Any], slip: str | None = None, slip_row: int | None = None) -> list[dict[str, Any]]:
    """Every step of kinds rnn, lstm, gru (no stated gates), with the output layer when there is one."""
    kind, g = raw["kind"], raw["given"]
    opts = raw.get("cell", {})
    layout = opts.get("layout", "gates")
    P = canonical(kind, g, layout)
    d_h = next(iter(P.values()))["Wh"].shape[0]
    reset = opts.get("reset", "before" if layout == "gates" else "after")
    h = num(g["h0"]) if "h0" in g else np.zeros(d_h)
    c = (num(g["c0"]) if "c0" in g else np.zeros(d_h)) if kind == "lstm" else None
    vocab = g.get("vocab")
    steps = []
    for t, x in enumerate(num(g["x"])):
        v = cell(kind, P, x, h, c, reset, opts.get("update", "keep"), slip)
        h, c = v["h"], v.get("c")
        if "W_out" in g:
            target = vocab.index(g["targets"][t]) if "targets" in g else None
            v.update(output(num(g["W_out"]), h, target, slip_row))
        steps.append(v)
    return steps


def run_seq2seq(raw: dict[str, Any], slip: str | None = None, slip_row: int | None = None) -> list[dict[str, Any]]:
    """The decoder steps of a one-directional seq2seq problem (teacher forcing), with their attention."""
    e, d = raw["encoder"], raw["decoder"]
    kind = e.get("cell", "gru")
    Pe = canonical(kind, e, e.get("layout", "gates"))
    d_h = Pe[next(iter(Pe))]["Wh"].shape[0]
    reset = e.get("reset", "before" if e.get("layout", "gates") == "gates" else "after")
    h, c = np.zeros(d_h), (np.zeros(d_h) if kind == "lstm" else None)
    H = []
    for x in num(e["x"]):
        v = cell(kind, Pe, x, h, c, reset, e.get("update", "keep"))
        h, c = v["h"], v.get("c")
        H.append(h)
    Hm = np.array(H)
    dk = d.get("cell", "gru")
    Pd = canonical(dk, d, d.get("layout", "gates"))
    dreset = d.get("reset", "before" if d.get("layout", "gates") == "gates" else "after")
    attention = d.get("attention", "luong")
    score = d.get("score", "dot" if attention == "luong" else "additive")

    def attend(q: np.ndarray) -> dict[str, np.ndarray]:
        if score == "dot":
            sc = Hm @ q
        elif score == "general":
            sc = Hm @ (num(d["W_a"]).T @ q)
        else:
            sc = np.tanh(num(d["W_q"]) @ q + Hm @ num(d["W_k"]).T) @ num(d["v"])
        a = softmax(sc)
        return {"scores": sc, "weights": a, "context": a @ Hm}

    vocab, targets = d["vocab"], d["targets"]
    steps = []
    ctx_prev = np.zeros(Hm.shape[1])
    for t, y in enumerate(num(d["inputs"])):
        step: dict[str, Any] = {}
        if attention == "bahdanau":
            if slip == "bahdanau_current_state":  # the cell first (on the previous context), then score with s_t
                v = cell(dk, Pd, np.r_[y, ctx_prev], h, c, dreset, d.get("update", "keep"))
                step.update(attend(v["h"]))
            else:
                step.update(attend(h))
                v = cell(dk, Pd, np.r_[y, step["context"]], h, c, dreset, d.get("update", "keep"))
            ctx_prev = step["context"]
            u = v["h"]
        elif attention == "luong":
            v = cell(dk, Pd, y, h, c, dreset, d.get("update", "keep"))
            step.update(attend(v["h"]))
            step["attentional"] = np.tanh(num(d["W_att"]) @ np.r_[step["context"], v["h"]])
            u = v["h"] if slip == "luong_logits_from_h" else step["attentional"]
        else:
            v = cell(dk, Pd, y, h, c, dreset, d.get("update", "keep"))
            u = v["h"]
        h, c = v["h"], v.get("c")
        step["h"] = v["h"]
        step.update(output(num(d["W_out"]), u, vocab.index(targets[t]), slip_row))
        steps.append(step)
    return steps
