"""Oracle tests for seq2seq without attention (decoder.attention = "none"): the encoder and the
decoder built in torch (LSTMCell / GRUCell, float64, the same weights), the decoder starting from
the encoder's final state (or the given decoder.h0 / c0), teacher-forced inputs, a linear output
layer, cross_entropy, autograd for the gradient and torch.optim.SGD for the update.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is the oracle for these tests (pip install torch==2.13.0)")
F = torch.nn.functional

from ..helpers import solve_raw  # noqa: E402
from .test_oracle_rnn import layout_tables, torch_cell, val, weights_of  # noqa: E402

TOL = 1e-9


def _step(cell: Any, kind: str, x: Any, h: Any, c: Any) -> tuple[Any, Any]:
    if kind == "lstm":
        h2, c2 = cell(x.unsqueeze(0), (h.unsqueeze(0), c.unsqueeze(0)))
        return h2[0], c2[0]
    return cell(x.unsqueeze(0), h.unsqueeze(0))[0], c


@pytest.mark.parametrize(
    "style",
    [
        ("lstm", "lstm", "pytorch", "pytorch", False, False),
        ("lstm", "lstm", "gates", "keras", False, True),
        ("lstm", "gru", "gates", "gates", False, False),
        ("gru", "gru", "keras", "pytorch", False, False),
        ("lstm", "lstm", "pytorch", "pytorch", True, False),
        ("gru", "gru", "pytorch", "gates", True, True),
    ],
    ids=["lstm-lstm", "lstm-lstm-h0c0", "lstm-gru", "gru-gru-keras", "bilstm-lstm", "bigru-gru-h0"],
)
def test_seq2seq_without_attention_matches_a_torch_model(style: tuple[str, str, str, str, bool, bool]) -> None:
    enc_kind, dec_kind, enc_layout, dec_layout, bidir, given_start = style
    rng = np.random.default_rng(11)
    n, T, d_x, d_y, d_e, V = 3, 3, 2, 3, 2, 4
    d_enc = d_e * (2 if bidir else 1)
    d_dec = d_enc if not given_start else 3  # a given start may have its own width
    enc = torch_cell(enc_kind, d_x, d_e, 21)
    rev = torch_cell(enc_kind, d_x, d_e, 22) if bidir else None
    dec = torch_cell(dec_kind, d_y, d_dec, 23)
    X = rng.uniform(-1, 1, size=(n, d_x))
    Y = rng.uniform(-1, 1, size=(T, d_y))
    W_out = rng.uniform(-1, 1, size=(V, d_dec))
    b_out = rng.uniform(-0.5, 0.5, size=V)
    h0 = rng.uniform(-0.5, 0.5, size=d_dec)
    c0 = rng.uniform(-0.5, 0.5, size=d_dec)
    targets = [3, 0, 1]
    lr = 0.2

    e_given, e_opts = layout_tables(enc_kind, weights_of(enc), enc_layout)
    encoder: dict[str, Any] = {"cell": enc_kind, **e_opts, **e_given, "x": X.tolist(), "bidirectional": bidir}
    if rev is not None:
        encoder["reverse"] = layout_tables(enc_kind, weights_of(rev), enc_layout)[0]
    d_given, d_opts = layout_tables(dec_kind, weights_of(dec), dec_layout)
    decoder: dict[str, Any] = {"cell": dec_kind, **d_opts, **d_given, "attention": "none"}
    decoder |= {"inputs": Y.tolist(), "W_out": W_out.tolist(), "b_out": b_out.tolist(), "targets": targets}
    if given_start:
        decoder["h0"] = h0.tolist()
        if dec_kind == "lstm":
            decoder["c0"] = c0.tolist()
    raw = {"kind": "seq2seq", "encoder": encoder, "decoder": decoder, "training": {"optimizer": "sgd", "lr": lr}}
    d = solve_raw(raw, exact=False)

    Wt = torch.tensor(W_out, requires_grad=True)
    bt = torch.tensor(b_out, requires_grad=True)
    with torch.no_grad():

        def run(cell: Any, order: list[int]) -> tuple[Any, Any]:
            h = torch.zeros(d_e, dtype=torch.float64)
            c = torch.zeros(d_e, dtype=torch.float64)
            for i in order:
                h, c = _step(cell, enc_kind, torch.tensor(X[i]), h, c)
            return h, c

        h, c = run(enc, list(range(n)))
        if rev is not None:  # PyTorch's h_n: each direction's last state, concatenated
            hb, cb = run(rev, list(range(n - 1, -1, -1)))
            h, c = torch.cat([h, hb]), torch.cat([c, cb])
        if given_start:
            h, c = torch.tensor(h0), torch.tensor(c0)
        us = []
        for t in range(T):
            h, c = _step(dec, dec_kind, torch.tensor(Y[t]), h, c)
            us.append(h)
            assert np.allclose(val(d, f"decoder.{t + 1}.h"), h.numpy(), atol=TOL, rtol=0), t
            if dec_kind == "lstm":
                assert np.allclose(val(d, f"decoder.{t + 1}.c"), c.numpy(), atol=TOL, rtol=0), t
    Z = torch.stack([Wt @ u + bt for u in us])
    for t in range(T):
        assert np.allclose(val(d, f"decoder.{t + 1}.logits"), Z[t].detach().numpy(), atol=TOL, rtol=0)
    loss = F.cross_entropy(Z, torch.tensor(targets), reduction="sum")
    loss.backward()
    assert abs(float(d.step("loss").value) - loss.item()) < TOL
    assert np.allclose(val(d, "grad_W_out"), Wt.grad.numpy(), atol=TOL, rtol=0)
    assert np.allclose(val(d, "grad_b_out"), bt.grad.numpy(), atol=TOL, rtol=0)
    torch.optim.SGD([Wt, bt], lr=lr).step()
    assert np.allclose(val(d, "W_out_new"), Wt.detach().numpy(), atol=TOL, rtol=0)
    assert np.allclose(val(d, "b_out_new"), bt.detach().numpy(), atol=TOL, rtol=0)
    ids = [s.id for s in d.steps]
    assert not any(i.endswith((".scores", ".weights", ".context", ".input")) for i in ids)


def test_seq2seq_encoder_h0_c0_start_the_encoder() -> None:
    """[encoder] h0 / c0 are the encoder's initial state; the decoder then starts from its final one."""
    rng = np.random.default_rng(3)
    n, d_x, d_e = 2, 2, 2
    enc = torch_cell("lstm", d_x, d_e, 31)
    dec = torch_cell("lstm", 2, d_e, 32)
    X, Y = rng.uniform(-1, 1, size=(n, d_x)), rng.uniform(-1, 1, size=(2, 2))
    h0, c0 = rng.uniform(-1, 1, size=d_e), rng.uniform(-1, 1, size=d_e)
    encoder = {"cell": "lstm", "layout": "pytorch", **layout_tables("lstm", weights_of(enc), "pytorch")[0]}
    encoder |= {"x": X.tolist(), "h0": h0.tolist(), "c0": c0.tolist()}
    decoder = {"cell": "lstm", "layout": "pytorch", **layout_tables("lstm", weights_of(dec), "pytorch")[0]}
    decoder |= {"attention": "none", "inputs": Y.tolist(), "W_out": [[1, 0], [0, 1]], "targets": [0, 1]}
    d = solve_raw({"kind": "seq2seq", "encoder": encoder, "decoder": decoder}, exact=False)
    with torch.no_grad():
        h, c = torch.tensor(h0), torch.tensor(c0)
        for i in range(n):
            h, c = _step(enc, "lstm", torch.tensor(X[i]), h, c)
        assert np.allclose(val(d, f"encoder.{n}.h"), h.numpy(), atol=TOL, rtol=0)
        for t in range(2):
            h, c = _step(dec, "lstm", torch.tensor(Y[t]), h, c)
        assert np.allclose(val(d, "decoder.2.h"), h.numpy(), atol=TOL, rtol=0)
        assert np.allclose(val(d, "decoder.2.c"), c.numpy(), atol=TOL, rtol=0)


def test_rnn_nonlinearity_relu_matches_torch() -> None:
    """[cell] nonlinearity = "relu": h_t = relu(W [h; x] + b), as torch.nn.RNNCell(nonlinearity="relu")."""
    torch.manual_seed(41)
    cell = torch.nn.RNNCell(2, 3, nonlinearity="relu").double()
    rng = np.random.default_rng(41)
    xs = rng.uniform(-1, 1, size=(3, 2))
    given, opts = layout_tables("rnn", weights_of(cell), "gates")
    given["x"] = xs.tolist()
    d = solve_raw({"kind": "rnn", "given": given, "cell": {**opts, "nonlinearity": "relu"}}, exact=False)
    with torch.no_grad():
        h = torch.zeros(1, 3, dtype=torch.float64)
        for t in range(3):
            h = cell(torch.tensor(xs[t]).unsqueeze(0), h)
            assert np.allclose(val(d, f"{t + 1}.h"), h.numpy()[0], atol=TOL, rtol=0)


def test_adam_beta1_beta2_eps_match_torch_optim() -> None:
    """[training] beta1, beta2, eps are Adam's betas and eps (torch.optim.Adam(betas=(beta1, beta2), eps))."""
    rng = np.random.default_rng(43)
    W_out = rng.uniform(-1, 1, size=(3, 2))
    b_out = rng.uniform(-1, 1, size=3)
    xs = rng.uniform(-1, 1, size=(2, 2))
    W = rng.uniform(-1, 1, size=(2, 4))
    raw = {
        "kind": "rnn",
        "given": {"x": xs.tolist(), "W": W.tolist(), "W_out": W_out.tolist(), "b_out": b_out.tolist()}
        | {"vocab": ["a", "b", "c"], "targets": ["c", "a"]},
        "training": {"optimizer": "adam", "lr": 0.05, "beta1": 0.5, "beta2": 0.75, "eps": 0.01},
    }
    d = solve_raw(raw, exact=False)
    Wt = torch.tensor(W_out, requires_grad=True)
    bt = torch.tensor(b_out, requires_grad=True)
    h = torch.zeros(2, dtype=torch.float64)
    zs = []
    for t in range(2):
        h = torch.tanh(torch.tensor(W) @ torch.cat([h, torch.tensor(xs[t])]))
        zs.append(Wt @ h + bt)
    F.cross_entropy(torch.stack(zs), torch.tensor([2, 0]), reduction="sum").backward()
    torch.optim.Adam([Wt, bt], lr=0.05, betas=(0.5, 0.75), eps=0.01).step()
    assert np.allclose(val(d, "W_out_new"), Wt.detach().numpy(), atol=TOL, rtol=0)
    assert np.allclose(val(d, "b_out_new"), bt.detach().numpy(), atol=TOL, rtol=0)
