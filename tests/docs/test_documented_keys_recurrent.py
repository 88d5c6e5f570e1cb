"""Every documented [cell], recurrent [given], [encoder] and [decoder] key, used in a problem that
solves, checked against a numpy oracle written from the papers' equations."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ..helpers import solve_raw
from ..key_oracles import A, close, sigmoid, softmax

# ------------------------------------------------------------------ recurrent cells: [cell] and given


XS = [[1, 0], [0.5, -1]]
H0 = [0.5, -0.5]
GATE_W = {
    "f": [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]],
    "i": [[0.2, -0.1, 0.3, 0], [0.1, 0.4, 0, -0.3]],
    "g": [[0.5, 0.1, -0.5, 0.2], [0, -0.2, 0.6, 0.1]],
    "o": [[-0.3, 0.2, 0.1, 0.4], [0.2, 0.1, -0.1, 0.3]],
}
GATE_B = {"f": [1, 1], "i": [0, 0.5], "g": [0.1, 0], "o": [-0.2, 0.2]}
LSTM_NAMES = {"f": "f", "i": "i", "g": "c", "o": "o"}


def lstm_oracle() -> list[np.ndarray]:
    h, c, out = A(H0), np.zeros(2), []
    for x in A(XS):
        hx = np.concatenate([h, x])  # the gates act on [h; x]
        pre = {k: A(GATE_W[k]) @ hx + A(GATE_B[k]) for k in "figo"}
        c = sigmoid(pre["f"]) * c + sigmoid(pre["i"]) * np.tanh(pre["g"])
        h = sigmoid(pre["o"]) * np.tanh(c)
        out.append(h)
    return out


def lstm_raw(layout: str) -> dict[str, Any]:
    given: dict[str, Any] = {"x": XS, "h0": H0}
    if layout == "gates":
        for k, name in LSTM_NAMES.items():
            given[f"W_{name}"], given[f"b_{name}"] = GATE_W[k], GATE_B[k]
    else:  # PyTorch stacks i, f, g, o; its weight_ih acts on x, weight_hh on h; Keras transposes
        ih = np.vstack([A(GATE_W[k])[:, 2:] for k in "ifgo"])
        hh = np.vstack([A(GATE_W[k])[:, :2] for k in "ifgo"])
        b = np.concatenate([A(GATE_B[k]) for k in "ifgo"])
        if layout == "pytorch":
            given.update(weight_ih=ih.tolist(), weight_hh=hh.tolist(), bias_ih=b.tolist(), bias_hh=[0] * 8)
        else:
            given.update(kernel=ih.T.tolist(), recurrent_kernel=hh.T.tolist(), bias=b.tolist())
    return {"kind": "lstm", "given": given, "cell": {"layout": layout}}


@pytest.mark.parametrize("layout", ["gates", "pytorch", "keras"])
def test_lstm_layouts_x_h0(layout: str) -> None:
    d = solve_raw(lstm_raw(layout))
    for t, h in enumerate(lstm_oracle(), 1):
        close(d.step(f"{t}.h"), h)


GRU_W = {
    "r": [[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5]],
    "z": [[0.2, -0.1, 0.3, 0], [0.1, 0.4, 0, -0.3]],
    "h": [[0.5, 0.1, -0.5, 0.2], [0, -0.2, 0.6, 0.1]],
}


def gru_oracle(reset: str, update: str) -> list[np.ndarray]:
    h, out = A(H0), []
    for x in A(XS):
        hx = np.concatenate([h, x])
        r = sigmoid(A(GRU_W["r"]) @ hx)
        z = sigmoid(A(GRU_W["z"]) @ hx)
        Wh = A(GRU_W["h"])
        if reset == "before":  # Cho et al.: W (r ⊙ h) inside
            n = np.tanh(Wh @ np.concatenate([r * h, x]))
        else:  # PyTorch: r ⊙ (W_hn h) outside
            n = np.tanh(Wh[:, 2:] @ x + r * (Wh[:, :2] @ h))
        h = (1 - z) * n + z * h if update == "keep" else z * n + (1 - z) * h
        out.append(h)
    return out


@pytest.mark.parametrize("reset", ["before", "after"])
@pytest.mark.parametrize("update", ["keep", "replace"])
def test_gru_reset_and_update(reset: str, update: str) -> None:
    raw = {
        "kind": "gru",
        "given": {"x": XS, "h0": H0, "W_r": GRU_W["r"], "W_z": GRU_W["z"], "W_h": GRU_W["h"]},
        "cell": {"layout": "gates", "reset": reset, "update": update},
    }
    d = solve_raw(raw)
    for t, h in enumerate(gru_oracle(reset, update), 1):
        close(d.step(f"{t}.h"), h)


def test_rnn_w_b() -> None:
    W, b = [[0.5, -0.5, 1, 0], [0.25, 0.5, 0, 1]], [0.1, -0.1]
    d = solve_raw({"kind": "rnn", "given": {"x": XS, "h0": H0, "W": W, "b": b}})
    h = A(H0)
    for t, x in enumerate(A(XS), 1):
        h = np.tanh(A(W) @ np.concatenate([h, x]) + A(b))
        close(d.step(f"{t}.h"), h)


def test_stated_gates_output_layer_targets_training() -> None:
    """[[given.gates]], c0, W_out, b_out, vocab, targets and [training] on a recurrent cell."""
    gates = {"f": [0.68, 0.72], "i": [0.75, 0.69], "c_tilde": [0.4, 0.5], "o": [0.73, 0.81]}
    c0, h0, Wo, bo = [0.71, 1.2], [0.45, 0.71], [[1.2, 0.8], [0.3, 0.2]], [0.3, 0.1]
    raw = {
        "kind": "lstm",
        "given": {"h0": h0, "c0": c0, "gates": [gates], "W_out": Wo, "b_out": bo, "vocab": ["yes", "no"]},
        "training": {"optimizer": "sgd", "lr": 0.1},
    }
    raw["given"]["targets"] = ["no"]
    d = solve_raw(raw)
    c = A(gates["f"]) * A(c0) + A(gates["i"]) * A(gates["c_tilde"])
    h = A(gates["o"]) * np.tanh(c)
    close(d.step("1.c"), c)
    close(d.step("1.h"), h)
    z = A(Wo) @ h + A(bo)
    p = softmax(z)
    close(d.step("1.logits"), z)
    close(d.step("1.loss"), -np.log(p[1]))
    assert d.step("1.prediction").value == ["yes", "no"][int(np.argmax(p))]
    close(d.step("W_out_new"), A(Wo) - 0.1 * np.outer(p - np.eye(2)[1], h))


# ------------------------------------------------------------------ seq2seq: [encoder] and [decoder]


SRC = [[1, 0], [0, 1]]
W_ENC = [[0.5, 0, 1, 0], [0, 0.5, 0, 1]]  # rnn gates layout: h = tanh(W [h; x])
W_REV = [[0.25, 0, 0, 1], [0, 0.25, 1, 0]]
Y_IN = [[0, 0], [1, 0]]
VOCAB = ["I", "am", "<eos>"]
TARGETS = ["I", "am"]


def _rnn(W: np.ndarray, h: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.tanh(W @ np.concatenate([h, x]))


def seq2seq_oracle(attention: str, score: str, dec: dict[str, Any], bidirectional: bool) -> dict[str, Any]:
    X = A(SRC)
    fwd, h = [], np.zeros(2)
    for x in X:
        h = _rnn(A(W_ENC), h, x)
        fwd.append(h)
    if bidirectional:
        bwd, hb = [np.zeros(2)] * 2, np.zeros(2)
        for t in (1, 0):
            hb = _rnn(A(W_REV), hb, X[t])
            bwd[t] = hb
        Hs = np.array([np.concatenate([f, b]) for f, b in zip(fwd, bwd, strict=True)])
        s = np.concatenate([fwd[-1], bwd[0]])
    else:
        Hs, s = np.array(fwd), fwd[-1]

    def attend(q: np.ndarray) -> np.ndarray:
        if score == "dot":
            e = Hs @ q
        elif score == "general":
            e = np.array([q @ (A(dec["W_a"]) @ hi) for hi in Hs])
        else:
            e = np.array([A(dec["v"]) @ np.tanh(A(dec["W_q"]) @ q + A(dec["W_k"]) @ hi) for hi in Hs])
        return softmax(e) @ Hs

    Wd, Wo, bo = A(dec["W"]), A(dec["W_out"]), A(dec.get("b_out", [0, 0, 0]))
    h_tilde = np.zeros(Wo.shape[1])
    us, ctxs = [], []
    for y in A(Y_IN):
        if attention == "bahdanau":
            c = attend(s)
            s = _rnn(Wd, s, np.concatenate([y, c]))
            u = s
        else:
            inp = np.concatenate([y, h_tilde]) if dec.get("input_feeding") else y
            s = _rnn(Wd, s, inp)
            c = attend(s)
            u = h_tilde = np.tanh(A(dec["W_att"]) @ np.concatenate([c, s]))
        us.append(u)
        ctxs.append(c)
    P = [softmax(Wo @ u + bo) for u in us]
    tgt = [VOCAB.index(t) for t in TARGETS]
    loss = -sum(np.log(p[k]) for p, k in zip(P, tgt, strict=True))
    grad = sum(np.outer(p - np.eye(3)[k], u) for p, k, u in zip(P, tgt, us, strict=True))
    return {"contexts": ctxs, "probs": P, "loss": loss, "W_out_new": Wo - 0.5 * grad}


CASES = [
    ("luong", "dot", {"W": [[0.5, 0, 1, 0], [0, 0.5, 0, 1]], "W_att": [[1, 0, 0, 1], [0, 1, 1, 0]]}, False),
    (
        "luong",
        "general",
        {
            "W": [[0.5, 0, 1, 0, 0.5, 0], [0, 0.5, 0, 1, 0, 0.5]],
            "W_att": [[1, 0, 0, 1], [0, 1, 1, 0]],
            "W_a": [[1, 0.5], [0, -1]],
            "input_feeding": True,
        },
        False,
    ),
    (
        "bahdanau",
        "additive",
        {
            # 4×10: s_{t-1} (4) then y (2) then c_t (4)
            "W": [
                [0.5, 0, 0, 0, 1, 0, 0.5, 0, 0, 0],
                [0, 0.5, 0, 0, 0, 1, 0, 0.5, 0, 0],
                [0, 0, 0.5, 0, 1, 0, 0, 0, 0.5, 0],
                [0, 0, 0, 0.5, 0, 1, 0, 0, 0, 0.5],
            ],
            "W_q": [[0.5, 0, 0, 0.5], [0, 0.5, 0.5, 0]],
            "W_k": [[1, 0, 0, 0], [0, 0, 0, 1]],
            "v": [1, -1],
        },
        True,
    ),
]


@pytest.mark.parametrize(("attention", "score", "dec", "bidirectional"), CASES, ids=[c[0] + "-" + c[1] for c in CASES])
def test_seq2seq_keys(attention: str, score: str, dec: dict[str, Any], bidirectional: bool) -> None:
    """[encoder] cell, layout, x, weights, bidirectional, [encoder.reverse]; [decoder] cell, weights,
    attention, score, input_feeding, inputs, W_a / W_q, W_k, v / W_att, W_out, b_out, vocab, targets."""
    W_out = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 1]] if bidirectional else [[1, 0], [0, 1], [-1, 1]]
    dec = {**dec, "W_out": W_out, "b_out": [0.1, 0, -0.1]}
    encoder: dict[str, Any] = {"cell": "rnn", "x": SRC}
    if bidirectional:  # PyTorch layout: h = tanh(W_ih x + W_hh h)
        encoder.update(layout="pytorch", bidirectional=True)
        encoder.update(weight_ih=A(W_ENC)[:, 2:].tolist(), weight_hh=A(W_ENC)[:, :2].tolist())
        encoder["reverse"] = {"weight_ih": A(W_REV)[:, 2:].tolist(), "weight_hh": A(W_REV)[:, :2].tolist()}
    else:
        encoder.update(layout="gates", W=W_ENC)
    decoder = {
        "cell": "rnn",
        "attention": attention,
        "score": score,
        "inputs": Y_IN,
        "vocab": VOCAB,
        "targets": TARGETS,
    }
    decoder.update(dec)
    raw = {"kind": "seq2seq", "encoder": encoder, "decoder": decoder, "training": {"optimizer": "sgd", "lr": 0.5}}
    d = solve_raw(raw)
    want = seq2seq_oracle(attention, score, dec, bidirectional)
    for t in (1, 2):
        close(d.step(f"decoder.{t}.context"), want["contexts"][t - 1])
        close(d.step(f"decoder.{t}.probabilities"), want["probs"][t - 1])
    close(d.step("loss"), want["loss"])
    close(d.step("W_out_new"), want["W_out_new"])
