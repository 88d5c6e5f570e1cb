"""Oracle tests for the recurrent kinds and seq2seq: PyTorch's RNNCell, LSTMCell and GRUCell
(float64) with the weights converted into each of attncalc's layouts, cross_entropy, autograd
for the gradients, and torch.optim.SGD / Adam for the update. Skipped where torch is absent.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is the oracle for these tests (pip install torch==2.13.0)")
F = torch.nn.functional

from ..helpers import solve_raw  # noqa: E402

TOL = 1e-9
KERAS_GRU = [1, 0, 2]  # Keras stacks z, r, h; PyTorch r, z, n: Keras block k is PyTorch block KERAS_GRU[k]


def val(d: Any, step: str) -> np.ndarray:
    return np.asarray(d.step(step).value, dtype=float)


def blocks(a: np.ndarray, G: int) -> list[np.ndarray]:
    return np.split(a, G, axis=0)


def weights_of(cell: Any) -> dict[str, np.ndarray]:
    return {k: v.detach().numpy().astype(float) for k, v in cell.named_parameters()}


def layout_tables(kind: str, w: dict[str, np.ndarray], layout: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The torch cell's weights written in one of attncalc's layouts: (given keys, cell options)."""
    Wi, Wh, bi, bh = w["weight_ih"], w["weight_hh"], w["bias_ih"], w["bias_hh"]
    G = {"rnn": 1, "lstm": 4, "gru": 3}[kind]
    if layout == "pytorch":
        return {"weight_ih": Wi.tolist(), "weight_hh": Wh.tolist(), "bias_ih": bi.tolist(), "bias_hh": bh.tolist()}, {
            "layout": "pytorch"
        }
    if layout == "keras":
        order = KERAS_GRU if kind == "gru" else list(range(G))
        re = lambda a: np.concatenate([blocks(a, G)[k] for k in order], axis=0)  # noqa: E731
        given: dict[str, Any] = {"kernel": re(Wi).T.tolist(), "recurrent_kernel": re(Wh).T.tolist()}
        if kind == "gru":
            given["bias"] = [re(bi).tolist(), re(bh).tolist()]
        else:
            given["bias"] = (re(bi) + re(bh)).tolist()
        return given, {"layout": "keras"}
    names = {"rnn": ["W"], "lstm": ["W_i", "W_f", "W_c", "W_o"], "gru": ["W_r", "W_z", "W_h"]}[kind]
    given = {}
    for k, name in enumerate(names):
        Wk = np.concatenate([blocks(Wh, G)[k], blocks(Wi, G)[k]], axis=1)
        given[name] = Wk.tolist()
        bname = "b" + name[1:]
        if kind == "gru" and name == "W_h":
            given[bname] = blocks(bi, G)[k].tolist()
            given["b_hn"] = blocks(bh, G)[k].tolist()
        else:
            given[bname] = (blocks(bi, G)[k] + blocks(bh, G)[k]).tolist()
    opts: dict[str, Any] = {"layout": "gates"}
    if kind == "gru":
        opts["reset"] = "after"  # PyTorch's GRU applies r after W_hn h
    return given, opts


def torch_cell(kind: str, d_x: int, d_h: int, seed: int) -> Any:
    torch.manual_seed(seed)
    cls = {"rnn": torch.nn.RNNCell, "lstm": torch.nn.LSTMCell, "gru": torch.nn.GRUCell}[kind]
    return cls(d_x, d_h).double()


@pytest.mark.parametrize("layout", ["gates", "pytorch", "keras"])
@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
@pytest.mark.parametrize("seed", range(3))
def test_cells_match_torch_in_every_layout(kind: str, layout: str, seed: int) -> None:
    """Three steps of a cell agree with torch.nn.{RNN,LSTM,GRU}Cell to 1e-9, whatever the layout."""
    d_x, d_h, T = 3, 2 + seed % 2, 3
    cell = torch_cell(kind, d_x, d_h, seed)
    rng = np.random.default_rng(seed)
    xs = rng.uniform(-1, 1, size=(T, d_x))
    h0 = rng.uniform(-0.5, 0.5, size=d_h)
    c0 = rng.uniform(-0.5, 0.5, size=d_h)
    given, opts = layout_tables(kind, weights_of(cell), layout)
    given.update(x=xs.tolist(), h0=h0.tolist())
    if kind == "lstm":
        given["c0"] = c0.tolist()
    d = solve_raw({"kind": kind, "given": given, "cell": opts}, exact=False)
    h = torch.tensor(h0).unsqueeze(0)
    c = torch.tensor(c0).unsqueeze(0)
    for t in range(1, T + 1):
        x = torch.tensor(xs[t - 1]).unsqueeze(0)
        if kind == "lstm":
            h, c = cell(x, (h, c))
            assert np.allclose(val(d, f"{t}.c"), c.detach().numpy()[0], atol=TOL, rtol=0)
        else:
            h = cell(x, h)
        assert np.allclose(val(d, f"{t}.h"), h.detach().numpy()[0], atol=TOL, rtol=0), (t, layout)


def test_exact_lstm_step_evaluates_to_the_float_run() -> None:
    """In exact mode the float value of every step is its exact form evaluated (they agree to 1e-12)."""
    cell = torch_cell("lstm", 2, 2, 7)
    given, opts = layout_tables("lstm", weights_of(cell), "pytorch")
    given = {k: np.round(np.asarray(v), 2).tolist() for k, v in given.items()}
    given["x"] = [[0.5, -0.25]]
    exact = solve_raw({"kind": "lstm", "given": given, "cell": opts}, exact=True)
    numeric = solve_raw({"kind": "lstm", "given": given, "cell": opts}, exact=False)
    assert exact.step("1.f").exact is not None
    for s in exact.steps:
        assert np.allclose(np.asarray(s.value, dtype=float), val(numeric, s.id), atol=1e-12, rtol=0), s.id


@pytest.mark.parametrize("update", ["keep", "replace"])
def test_gru_with_the_reset_gate_before_the_product_matches_the_papers(update: str) -> None:
    """Cho et al.'s candidate tanh(W x + U (r ⊙ h) + b) and both directions of the update gate (numpy oracle)."""
    rng = np.random.default_rng(3)
    d_x, d_h = 2, 3
    W = {g: rng.uniform(-1, 1, size=(d_h, d_h + d_x)) for g in "rzh"}
    b = {g: rng.uniform(-0.5, 0.5, size=d_h) for g in "rzh"}
    x = rng.uniform(-1, 1, size=d_x)
    h = rng.uniform(-1, 1, size=d_h)
    given = {f"W_{g}": W[g].tolist() for g in "rzh"} | {f"b_{g}": b[g].tolist() for g in "rzh"}
    given |= {"x": x.tolist(), "h0": h.tolist()}
    d = solve_raw({"kind": "gru", "given": given, "cell": {"reset": "before", "update": update}}, exact=False)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    r = sig(W["r"] @ np.r_[h, x] + b["r"])
    z = sig(W["z"] @ np.r_[h, x] + b["z"])
    n = np.tanh(W["h"] @ np.r_[r * h, x] + b["h"])
    want = (1 - z) * n + z * h if update == "keep" else z * n + (1 - z) * h
    assert np.allclose(val(d, "1.h_tilde"), n, atol=TOL)
    assert np.allclose(val(d, "1.h"), want, atol=TOL)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_language_model_loss_gradient_and_update_match_autograd_and_torch_optim(optimizer: str) -> None:
    """An LSTM with an output layer: per-step cross-entropy, dL/dz, dL/dW_out, dL/db_out and one optimiser step."""
    d_x, d_h, V, T = 2, 3, 4, 3
    cell = torch_cell("lstm", d_x, d_h, 11)
    rng = np.random.default_rng(11)
    xs = rng.uniform(-1, 1, size=(T, d_x))
    W_out = rng.uniform(-1, 1, size=(V, d_h))
    b_out = rng.uniform(-0.5, 0.5, size=V)
    targets = [1, 3, 0]
    given, opts = layout_tables("lstm", weights_of(cell), "pytorch")
    given |= {"x": xs.tolist(), "W_out": W_out.tolist(), "b_out": b_out.tolist(), "targets": targets}
    lr = 0.05
    d = solve_raw(
        {"kind": "lstm", "given": given, "cell": opts, "training": {"optimizer": optimizer, "lr": lr}}, exact=False
    )
    Wt = torch.tensor(W_out, requires_grad=True)
    bt = torch.tensor(b_out, requires_grad=True)
    h = torch.zeros(1, d_h, dtype=torch.float64)
    c = torch.zeros(1, d_h, dtype=torch.float64)
    logits = []
    with torch.no_grad():
        hs = []
        for t in range(T):
            h, c = cell(torch.tensor(xs[t]).unsqueeze(0), (h, c))
            hs.append(h[0])
    for t in range(T):
        z = Wt @ hs[t] + bt
        z.retain_grad()
        logits.append(z)
    Z = torch.stack(logits)
    loss = F.cross_entropy(Z, torch.tensor(targets), reduction="sum")
    loss.backward()
    assert abs(float(d.step("loss").value) - loss.item()) < TOL
    probs = torch.softmax(Z, dim=-1).detach().numpy()
    assert (
        abs(float(d.step("sequence_probability").value) - np.prod([probs[t, k] for t, k in enumerate(targets)])) < TOL
    )
    for t in range(T):
        assert np.allclose(val(d, f"{t + 1}.grad_logits"), logits[t].grad.numpy(), atol=TOL)
        assert (
            abs(
                float(d.step(f"{t + 1}.loss").value)
                - F.cross_entropy(Z[t : t + 1], torch.tensor(targets[t : t + 1])).item()
            )
            < TOL
        )
    assert np.allclose(val(d, "grad_W_out"), Wt.grad.numpy(), atol=TOL)
    assert np.allclose(val(d, "grad_b_out"), bt.grad.numpy(), atol=TOL)
    opt = torch.optim.SGD([Wt, bt], lr=lr) if optimizer == "sgd" else torch.optim.Adam([Wt, bt], lr=lr)
    opt.step()
    assert np.allclose(val(d, "W_out_new"), Wt.detach().numpy(), atol=TOL)
    assert np.allclose(val(d, "b_out_new"), bt.detach().numpy(), atol=TOL)


def _torch_attend(q: Any, H: Any, score: str, P: dict[str, Any]) -> Any:
    if score == "dot":
        e = H @ q
    elif score == "general":
        e = H @ (P["W_a"].T @ q)
    else:
        e = torch.tanh(q @ P["W_q"].T + H @ P["W_k"].T) @ P["v"]
    a = torch.softmax(e, dim=0)
    return a, a @ H


@pytest.mark.parametrize(
    "style",
    [
        ("luong", "dot", "lstm", False, True, "adam"),
        ("luong", "general", "gru", True, False, "sgd"),
        ("bahdanau", "additive", "gru", True, False, "adam"),
        ("bahdanau", "dot", "rnn", False, False, "sgd"),
    ],
    ids=["luong-dot-lstm-feed", "luong-general-bigru", "bahdanau-additive-bigru", "bahdanau-dot-rnn"],
)
def test_seq2seq_step_matches_a_torch_model(style: tuple[str, str, str, bool, bool, str]) -> None:
    """Encoder, attention, decoder, loss, gradient and update agree with the same model built in torch."""
    attention, score, kind, bidir, feed, optimizer = style
    rng = np.random.default_rng(5)
    n, T, d_x, d_y, d_e, V = 3, 2, 2, 2, 2, 3
    d_enc = d_e * (2 if bidir else 1)
    d_dec = d_enc
    d_att = 2
    enc = torch_cell(kind, d_x, d_e, 1)
    rev = torch_cell(kind, d_x, d_e, 2) if bidir else None
    if attention == "bahdanau":
        d_in = d_y + d_enc
    else:
        d_in = d_y + (d_att if feed else 0)
    dec = torch_cell(kind, d_in, d_dec, 3)
    X = rng.uniform(-1, 1, size=(n, d_x))
    Y = rng.uniform(-1, 1, size=(T, d_y))
    P = {
        "W_a": rng.uniform(-1, 1, size=(d_dec, d_enc)),
        "W_q": rng.uniform(-1, 1, size=(2, d_dec)),
        "W_k": rng.uniform(-1, 1, size=(2, d_enc)),
        "v": rng.uniform(-1, 1, size=2),
        "W_att": rng.uniform(-1, 1, size=(d_att, d_enc + d_dec)),
    }
    width = d_att if attention == "luong" else d_dec
    W_out = rng.uniform(-1, 1, size=(V, width))
    b_out = rng.uniform(-0.5, 0.5, size=V)
    targets = [2, 0]
    lr = 0.1

    e_given, e_opts = layout_tables(kind, weights_of(enc), "pytorch")
    encoder: dict[str, Any] = {"cell": kind, **e_opts, **e_given, "x": X.tolist(), "bidirectional": bidir}
    if rev is not None:
        encoder["reverse"] = layout_tables(kind, weights_of(rev), "pytorch")[0]
    d_given, d_opts = layout_tables(kind, weights_of(dec), "pytorch")
    decoder: dict[str, Any] = {"cell": kind, **d_opts, **d_given, "attention": attention, "score": score}
    decoder |= {"inputs": Y.tolist(), "W_out": W_out.tolist(), "b_out": b_out.tolist(), "targets": targets}
    decoder["input_feeding"] = feed
    if score == "general":
        decoder["W_a"] = P["W_a"].tolist()
    if score == "additive":
        decoder |= {k: P[k].tolist() for k in ("W_q", "W_k", "v")}
    if attention == "luong":
        decoder["W_att"] = P["W_att"].tolist()
    raw = {"kind": "seq2seq", "encoder": encoder, "decoder": decoder, "training": {"optimizer": optimizer, "lr": lr}}
    d = solve_raw(raw, exact=False)

    tt = {k: torch.tensor(v) for k, v in P.items()}
    Wt = torch.tensor(W_out, requires_grad=True)
    bt = torch.tensor(b_out, requires_grad=True)
    with torch.no_grad():

        def run(cell: Any, order: list[int]) -> tuple[dict[int, Any], Any]:
            h = torch.zeros(1, d_e, dtype=torch.float64)
            c = torch.zeros(1, d_e, dtype=torch.float64)
            out = {}
            for i in order:
                x = torch.tensor(X[i]).unsqueeze(0)
                if kind == "lstm":
                    h, c = cell(x, (h, c))
                else:
                    h = cell(x, h)
                out[i] = h[0]
            return out, c[0]

        fwd, c_f = run(enc, list(range(n)))
        if rev is not None:
            bwd, c_b = run(rev, list(range(n - 1, -1, -1)))
            H = torch.stack([torch.cat([fwd[i], bwd[i]]) for i in range(n)])
            s = torch.cat([fwd[n - 1], bwd[0]])
            c = torch.cat([c_f, c_b])
        else:
            H = torch.stack([fwd[i] for i in range(n)])
            s, c = fwd[n - 1], c_f
        us = []
        h_t = torch.zeros(d_att, dtype=torch.float64)
        for t in range(T):
            y = torch.tensor(Y[t])
            if attention == "bahdanau":
                a, ctx = _torch_attend(s, H, score, tt)
                inp = torch.cat([y, ctx])
            else:
                inp = torch.cat([y, h_t]) if feed else y
            if kind == "lstm":
                s_new, c = dec(inp.unsqueeze(0), (s.unsqueeze(0), c.unsqueeze(0)))
                s, c = s_new[0], c[0]
            else:
                s = dec(inp.unsqueeze(0), s.unsqueeze(0))[0]
            if attention == "luong":
                a, ctx = _torch_attend(s, H, score, tt)
                h_t = torch.tanh(tt["W_att"] @ torch.cat([ctx, s]))
                us.append(h_t)
            else:
                us.append(s)
            assert np.allclose(val(d, f"decoder.{t + 1}.weights"), a.numpy(), atol=TOL)
            assert np.allclose(val(d, f"decoder.{t + 1}.context"), ctx.numpy(), atol=TOL)
            assert np.allclose(val(d, f"decoder.{t + 1}.h"), s.numpy(), atol=TOL)
    Z = torch.stack([Wt @ u + bt for u in us])
    loss = F.cross_entropy(Z, torch.tensor(targets), reduction="sum")
    loss.backward()
    assert abs(float(d.step("loss").value) - loss.item()) < TOL
    assert np.allclose(val(d, "grad_W_out"), Wt.grad.numpy(), atol=TOL)
    assert np.allclose(val(d, "grad_b_out"), bt.grad.numpy(), atol=TOL)
    opt = torch.optim.SGD([Wt, bt], lr=lr) if optimizer == "sgd" else torch.optim.Adam([Wt, bt], lr=lr)
    opt.step()
    assert np.allclose(val(d, "W_out_new"), Wt.detach().numpy(), atol=TOL)
    assert np.allclose(val(d, "b_out_new"), bt.detach().numpy(), atol=TOL)
