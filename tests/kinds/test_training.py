"""[training] optimizer = "adamw" (decoupled weight decay) and clip_norm (global norm
clipping), for every kind with [training]: softmax, rnn/lstm/gru, seq2seq.

Oracles: torch.optim.AdamW / SGD / Adam and torch.nn.utils.clip_grad_norm_ in float64, on the same
tensors (autograd for the softmax and LSTM gradients; for seq2seq, whose gradients have their own oracle
test, the derivation's gradients are handed to torch and the clipping and the step are torch's); exact
mode agrees with float.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.errors import ProblemError
from attncalc.parse import parse_problem

from ..helpers import PROBLEMS, solve_file, solve_raw

torch = pytest.importorskip("torch", reason="PyTorch is the oracle for these tests (pip install torch==2.13.0)")
F = torch.nn.functional
TOL = 1e-9


def val(d: Any, step: str) -> np.ndarray:
    return np.asarray(d.step(step).value, dtype=float)


def _softmax_raw(optimizer: str, clip: float | None, decay: float | None = None) -> dict[str, Any]:
    raw = tomllib.loads(Path(PROBLEMS, "adamw-clipping.toml").read_text())
    raw["training"] = {"optimizer": optimizer, "lr": 0.1}
    if clip is not None:
        raw["training"]["clip_norm"] = clip
    if decay is not None:
        raw["training"]["weight_decay"] = decay
    return raw


def _torch_step(params: list[Any], optimizer: str, lr: float, decay: float | None, clip: float | None) -> float | None:
    """clip_grad_norm_ (when clip) and one step of the optimiser; the total norm torch measured."""
    norm = None
    if clip is not None:
        norm = float(torch.nn.utils.clip_grad_norm_(params, clip))
    if optimizer == "sgd":
        opt = torch.optim.SGD(params, lr=lr)
    elif optimizer == "adam":
        opt = torch.optim.Adam(params, lr=lr)
    else:
        opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01 if decay is None else decay)
    opt.step()
    return norm


@pytest.mark.parametrize("clip", [None, 1.0, 0.25, 10.0])
@pytest.mark.parametrize("optimizer", ["sgd", "adam", "adamw"])
def test_softmax_step_matches_torch_optim_and_clip_grad_norm(optimizer: str, clip: float | None) -> None:
    """The example's output layer: autograd's gradients, clip_grad_norm_ over [W, b], one torch step
    (AdamW with its default λ = 0.01 and with the example's 0.1)."""
    for decay in (None, 0.1) if optimizer == "adamw" else (None,):
        raw = _softmax_raw(optimizer, clip, decay)
        g = raw["given"]
        d = solve_raw(raw, exact=False)
        W = torch.tensor(g["W_out"], dtype=torch.float64, requires_grad=True)
        b = torch.tensor(g["b_out"], dtype=torch.float64, requires_grad=True)
        h = torch.tensor(g["hidden"], dtype=torch.float64)
        W0 = W.detach().clone()
        b0 = b.detach().clone()
        F.cross_entropy((W @ h + b).unsqueeze(0), torch.tensor([1])).backward()  # target "b" is index 1
        norm = _torch_step([W, b], optimizer, 0.1, decay, clip)
        if clip is None:
            assert "grad_norm" not in d and "grad_W_out_clipped" not in d
        else:
            assert norm is not None
            assert abs(float(val(d, "grad_norm")) - norm) < TOL
            scale = min(1.0, clip / (norm + 1e-6))  # clip_grad_norm_'s clip_coef, clamped to 1
            assert abs(float(val(d, "clip_scale")) - scale) < TOL
            assert np.allclose(val(d, "grad_W_out_clipped"), W.grad.numpy(), atol=TOL, rtol=0)
            assert np.allclose(val(d, "grad_b_out_clipped"), b.grad.numpy(), atol=TOL, rtol=0)
        if optimizer == "adamw":
            lam = 0.01 if decay is None else decay
            assert np.allclose(val(d, "decay"), 0.1 * lam * W0.numpy(), atol=TOL, rtol=0)
            assert np.allclose(val(d, "decay_b_out"), 0.1 * lam * b0.numpy(), atol=TOL, rtol=0)
            assert d.step_ids.index("decay") < d.step_ids.index("W_out_new")
        else:
            assert "decay" not in d
        assert np.allclose(val(d, "W_out_new"), W.detach().numpy(), atol=TOL, rtol=0), (optimizer, clip)
        assert np.allclose(val(d, "b_out_new"), b.detach().numpy(), atol=TOL, rtol=0), (optimizer, clip)


def test_the_adamw_example_matches_torch_and_its_exact_values() -> None:
    """problems/adamw-clipping.toml itself (λ = 0.1, max norm 1): torch's numbers; exact mode's values
    are the float ones."""
    raw = tomllib.loads(Path(PROBLEMS, "adamw-clipping.toml").read_text())
    t, g = raw["training"], raw["given"]
    W = torch.tensor(g["W_out"], dtype=torch.float64, requires_grad=True)
    b = torch.tensor(g["b_out"], dtype=torch.float64, requires_grad=True)
    F.cross_entropy((W @ torch.tensor(g["hidden"], dtype=torch.float64) + b).unsqueeze(0), torch.tensor([1])).backward()
    norm = _torch_step([W, b], "adamw", t["lr"], t["weight_decay"], t["clip_norm"])
    assert norm is not None and norm > t["clip_norm"]  # the example does clip
    exact = solve_file("adamw-clipping.toml")
    numeric = solve_file("adamw-clipping.toml", exact=False)
    assert exact.step("clip_scale").exact is not None
    for s in numeric.steps:
        if isinstance(s.value, str):
            continue
        assert np.allclose(val(exact, s.id), val(numeric, s.id), atol=1e-12, rtol=0), s.id
    assert np.allclose(val(exact, "W_out_new"), W.detach().numpy(), atol=TOL, rtol=0)
    assert np.allclose(val(exact, "b_out_new"), b.detach().numpy(), atol=TOL, rtol=0)
    assert abs(float(val(exact, "grad_norm")) - norm) < TOL


def test_a_norm_within_the_maximum_leaves_the_gradients_as_they_are() -> None:
    d = solve_raw(_softmax_raw("sgd", 10.0), exact=True)
    assert float(val(d, "clip_scale")) == 1.0
    assert d.step("clip_scale").exact is not None and str(d.step("clip_scale").exact.item()) == "1"
    assert np.array_equal(val(d, "grad_W_out_clipped"), val(d, "grad_W_out"))


def test_without_w_out_the_clipped_change_is_the_change_torch_makes() -> None:
    """Softmax with logits and hidden (W_out unknown): clipping over dL/dW_out alone, then Adam's change."""
    h = [0.5, -1.0, 2.0]
    raw = {
        "kind": "softmax",
        "given": {"logits": [1.0, 2.0, 0.5], "hidden": h, "target": 0},
        "training": {"optimizer": "adam", "lr": 0.01, "clip_norm": 0.5},
    }
    d = solve_raw(raw, exact=False)
    W = torch.zeros(3, 3, dtype=torch.float64, requires_grad=True)
    z0 = torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)
    F.cross_entropy((z0 + W @ torch.tensor(h, dtype=torch.float64)).unsqueeze(0), torch.tensor([0])).backward()
    norm = _torch_step([W], "adam", 0.01, None, 0.5)
    assert norm is not None and abs(float(val(d, "grad_norm")) - norm) < TOL
    assert np.allclose(val(d, "W_out_change"), W.detach().numpy(), atol=TOL, rtol=0)


@pytest.mark.parametrize("optimizer", ["sgd", "adam", "adamw"])
def test_lstm_language_model_step_with_clipping_matches_torch(optimizer: str) -> None:
    """An LSTM with an output layer over three steps: the summed loss's gradients (autograd), clipped
    together (W_out and b_out), then one torch step."""
    from .test_oracle_rnn import layout_tables, torch_cell, weights_of

    d_x, d_h, V, T = 2, 3, 4, 3
    cell = torch_cell("lstm", d_x, d_h, 5)
    rng = np.random.default_rng(5)
    xs = rng.uniform(-1, 1, size=(T, d_x))
    W_out = rng.uniform(-1, 1, size=(V, d_h))
    b_out = rng.uniform(-0.5, 0.5, size=V)
    targets = [2, 0, 3]
    given, opts = layout_tables("lstm", weights_of(cell), "pytorch")
    given |= {"x": xs.tolist(), "W_out": W_out.tolist(), "b_out": b_out.tolist(), "targets": targets}
    training = {"optimizer": optimizer, "lr": 0.05, "clip_norm": 0.3}
    if optimizer == "adamw":
        training["weight_decay"] = 0.2
    d = solve_raw({"kind": "lstm", "given": given, "cell": opts, "training": training}, exact=False)
    Wt = torch.tensor(W_out, requires_grad=True)
    bt = torch.tensor(b_out, requires_grad=True)
    h = torch.zeros(1, d_h, dtype=torch.float64)
    c = torch.zeros(1, d_h, dtype=torch.float64)
    hs = []
    with torch.no_grad():
        for t in range(T):
            h, c = cell(torch.tensor(xs[t]).unsqueeze(0), (h, c))
            hs.append(h[0])
    Z = torch.stack([Wt @ hs[t] + bt for t in range(T)])
    F.cross_entropy(Z, torch.tensor(targets), reduction="sum").backward()
    norm = _torch_step([Wt, bt], optimizer, 0.05, training.get("weight_decay"), 0.3)
    assert norm is not None and norm > 0.3
    assert abs(float(val(d, "grad_norm")) - norm) < TOL
    assert np.allclose(val(d, "grad_W_out_clipped"), Wt.grad.numpy(), atol=TOL, rtol=0)
    assert np.allclose(val(d, "W_out_new"), Wt.detach().numpy(), atol=TOL, rtol=0)
    assert np.allclose(val(d, "b_out_new"), bt.detach().numpy(), atol=TOL, rtol=0)


def test_seq2seq_adamw_with_clipping_is_torch_on_the_same_gradients() -> None:
    """seq2seq-luong.toml with AdamW and clipping: torch clips and steps from the derivation's gradients
    (their own oracle is test_oracle_rnn's seq2seq tests)."""
    raw = tomllib.loads(Path(PROBLEMS, "seq2seq-luong.toml").read_text())
    raw["training"] = {"optimizer": "adamw", "lr": 0.5, "weight_decay": 0.05, "clip_norm": 0.5}
    d = solve_raw(raw, exact=False)
    W = torch.tensor(raw["decoder"]["W_out"], dtype=torch.float64, requires_grad=True)
    W.grad = torch.tensor(val(d, "grad_W_out"))
    params = [W]
    if "b_out" in raw["decoder"]:
        b = torch.tensor(raw["decoder"]["b_out"], dtype=torch.float64, requires_grad=True)
        b.grad = torch.tensor(val(d, "grad_b_out"))
        params.append(b)
    norm = _torch_step(params, "adamw", 0.5, 0.05, 0.5)
    assert norm is not None and abs(float(val(d, "grad_norm")) - norm) < TOL
    assert np.allclose(val(d, "W_out_new"), W.detach().numpy(), atol=TOL, rtol=0)
    if len(params) == 2:
        assert np.allclose(val(d, "b_out_new"), params[1].detach().numpy(), atol=TOL, rtol=0)


def test_hand_chain_carries_the_rounded_decay_and_scale() -> None:
    """--carry: each entry of W_out' from the rounded θ, decay and clipped gradient (recomputed here)."""
    d = solve_file("adamw-clipping.toml", exact=False, carry_rounded=True)
    W0 = np.asarray(tomllib.loads(Path(PROBLEMS, "adamw-clipping.toml").read_text())["given"]["W_out"])
    dec = np.round(0.1 * 0.1 * W0, 3)
    g = val(d, "grad_W_out_clipped")
    want = W0 - dec - 0.1 * g / (np.abs(g) + 1e-8)
    assert np.allclose(val(d, "W_out_new"), np.vectorize(lambda x: math.floor(x * 1000 + 0.5) / 1000)(want))


@pytest.mark.parametrize(
    ("training", "given", "key"),
    [
        ({"optimizer": "adam", "weight_decay": 0.1}, None, "training.weight_decay"),
        ({"optimizer": "sgd", "weight_decay": 0.1}, None, "training.weight_decay"),
        ({"optimizer": "adamw", "weight_decay": -0.1}, None, "training.weight_decay"),
        ({"optimizer": "adamw", "weight_decay": "x"}, None, "training.weight_decay"),
        ({"clip_norm": 0}, None, "training.clip_norm"),
        ({"clip_norm": -1}, None, "training.clip_norm"),
        ({"clip_norm": [1]}, None, "training.clip_norm"),
        ({"optimizer": "adamw"}, {"logits": [1, 2], "hidden": [1], "target": 0}, "training.optimizer"),
        ({"optimizer": "lion"}, None, "training.optimizer"),
    ],
)
def test_bad_training_keys_name_the_key(training: dict[str, Any], given: dict[str, Any] | None, key: str) -> None:
    raw = _softmax_raw("sgd", None)
    raw["training"] = training
    if given is not None:
        raw["given"] = given
    with pytest.raises(ProblemError) as e:
        parse_problem(raw, "bad.toml")
    assert key in str(e.value) and "bad.toml" in str(e.value)
