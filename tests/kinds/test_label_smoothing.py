"""Kind softmax with [settings] label_smoothing = ε, PyTorch's convention.

Oracles: F.cross_entropy(label_smoothing=ε) for the loss and autograd for its gradient, in float64;
the smoothed target q = (1 − ε)·y + ε/K written here from PyTorch's documentation; exact mode's values
are the float ones and its forms the sympy values.
"""

from __future__ import annotations

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


def _torch(z: list[float], target: int, eps: float, T: float = 1.0) -> tuple[float, np.ndarray]:
    logits = torch.tensor(z, dtype=torch.float64, requires_grad=True)
    loss = F.cross_entropy((logits / T).unsqueeze(0), torch.tensor([target]), label_smoothing=eps)
    loss.backward()
    return loss.item(), logits.grad.numpy()


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize(
    ("z", "target", "eps", "T"),
    [
        ([2, 1, 0.5, -1], 1, 0.1, 1.0),
        ([2, 1, 0.1], 0, 0.2, 1.0),
        ([0.3, -0.7, 1.2, 0.0, 2.5], 4, 0.05, 2.0),
        ([1, 2], 1, 1.0, 1.0),
        ([1, 2, 3], 2, 0.0, 0.5),
    ],
)
def test_loss_and_gradient_match_cross_entropy_with_label_smoothing(
    z: list[float], target: int, eps: float, T: float, exact: bool
) -> None:
    raw: dict[str, Any] = {
        "kind": "softmax",
        "given": {"logits": z, "target": target},
        "settings": {"label_smoothing": eps, "temperature": T},
    }
    d = solve_raw(raw, exact=exact)
    loss, grad = _torch(z, target, eps, T)
    K = len(z)
    q = np.full(K, eps / K)
    q[target] += 1 - eps
    assert np.allclose(val(d, "smoothed_target"), q, atol=TOL, rtol=0)
    assert abs(float(val(d, "loss")) - loss) < TOL
    assert np.allclose(val(d, "gradient"), grad, atol=TOL, rtol=0)
    assert d.step_ids.index("smoothed_target") < d.step_ids.index("loss") < d.step_ids.index("gradient")
    if exact:
        assert d.step("loss").exact is not None


def test_the_example_with_epsilon_one_tenth_matches_torch_and_sympy() -> None:
    """problems/label-smoothing.toml: ε = 0.1 over K = 4; q's exact entries are 37/40 and 1/40."""
    import sympy as sp

    raw = tomllib.loads(Path(PROBLEMS, "label-smoothing.toml").read_text())
    d = solve_file("label-smoothing.toml")
    loss, grad = _torch(raw["given"]["logits"], 1, 0.1)
    assert abs(float(val(d, "loss")) - loss) < TOL
    assert np.allclose(val(d, "gradient"), grad, atol=TOL, rtol=0)
    q = d.step("smoothed_target").exact
    assert [sp.nsimplify(x) for x in q.tolist()] == [sp.Rational(1, 40), sp.Rational(37, 40)] + [sp.Rational(1, 40)] * 2


def test_with_an_output_layer_the_gradient_reaches_w_out_and_the_update() -> None:
    """W_out h + b_out, ε = 0.1 and one SGD step: autograd through F.cross_entropy(label_smoothing)."""
    W0 = [[0.5, -1.0], [1.0, 0.5], [-0.5, 1.0]]
    b0 = [0.1, 0.0, -0.1]
    h = [1.0, 2.0]
    raw = {
        "kind": "softmax",
        "given": {"W_out": W0, "b_out": b0, "hidden": h, "target": 2},
        "settings": {"label_smoothing": 0.1},
        "training": {"optimizer": "sgd", "lr": 0.5},
    }
    d = solve_raw(raw, exact=False)
    W = torch.tensor(W0, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(b0, dtype=torch.float64, requires_grad=True)
    z = W @ torch.tensor(h, dtype=torch.float64) + b
    F.cross_entropy(z.unsqueeze(0), torch.tensor([2]), label_smoothing=0.1).backward()
    assert np.allclose(val(d, "grad_W_out"), W.grad.numpy(), atol=TOL, rtol=0)
    torch.optim.SGD([W, b], lr=0.5).step()
    assert np.allclose(val(d, "W_out_new"), W.detach().numpy(), atol=TOL, rtol=0)
    assert np.allclose(val(d, "b_out_new"), b.detach().numpy(), atol=TOL, rtol=0)


def test_the_annotated_transformer_convention_differs() -> None:
    """The Annotated Transformer's target (1 − ε on the target, ε/(K − 1) elsewhere) is not PyTorch's:
    with K = 4, ε = 0.1 it gives 0.9 and 0.0333…, attncalc 0.925 and 0.025."""
    d = solve_file("label-smoothing.toml", exact=False)
    at = np.full(4, 0.1 / 3)
    at[1] = 0.9
    assert not np.allclose(val(d, "smoothed_target"), at)


@pytest.mark.parametrize(
    ("settings", "given", "message"),
    [
        ({"label_smoothing": 1.5}, None, "from 0 to 1"),
        ({"label_smoothing": -0.1}, None, "from 0 to 1"),
        ({"label_smoothing": "abc"}, None, "settings.label_smoothing"),
        ({"label_smoothing": 0.1}, {"logits": [1, 2]}, "give given.target"),
    ],
)
def test_bad_label_smoothing_names_the_key(settings: dict[str, Any], given: Any, message: str) -> None:
    raw: dict[str, Any] = {"kind": "softmax", "given": given or {"logits": [1, 2], "target": 0}, "settings": settings}
    with pytest.raises(ProblemError) as e:
        parse_problem(raw, "bad.toml")
    assert "settings.label_smoothing" in str(e.value) and message in str(e.value)


def test_label_smoothing_belongs_to_softmax_only() -> None:
    raw = {"kind": "decode", "given": {"logits": [1, 2]}, "settings": {"label_smoothing": 0.1}}
    with pytest.raises(ProblemError) as e:
        parse_problem(raw, "bad.toml")
    assert "settings.label_smoothing" in str(e.value) and "'softmax'" in str(e.value)
