"""Each element-wise function of a Map step lives in attncalc/derivation/elementwise.py: a step naming another
one is refused where the mechanism builds it (before, the sheets fell through to "times param" and
crashed with a traceback on float(None))."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attncalc.derivation import Map
from attncalc.derivation.elementwise import ELEMENTWISE
from attncalc.render import expand


def test_a_map_step_with_an_unknown_function_is_refused_when_built() -> None:
    with pytest.raises(ValueError, match="unknown element-wise function 'softplus'"):
        Map(id="y", title="", formula="", latex="", symbol="y", value=np.zeros(2), fn="softplus", arg=np.zeros(2))


@pytest.mark.parametrize(
    ("fn", "param", "want", "written"),
    [
        ("exp", None, [math.e, 1 / math.e], "exp(1)"),
        ("shift_exp", np.array([1.0]), [1.0, math.exp(-2)], "exp(1 − 1)"),
        ("tanh", None, [math.tanh(1), math.tanh(-1)], "tanh(1)"),
        ("sigmoid", None, [1 / (1 + math.exp(-1)), 1 / (1 + math.e)], "σ(1)"),
        ("relu", None, [1.0, 0.0], "relu(1)"),
        ("gelu", None, [0.8413447460685429, -0.15865525393145707], "GELU(1)"),  # x Φ(x), Φ(1) from tables
        ("sinusoid", None, [math.sin(1), math.cos(-1)], "sin(1)"),
        ("divide", np.asarray(2.0), [0.5, -0.5], "1 / 2"),
        ("scale", np.asarray(2.0), [2.0, -2.0], "1 · 2"),
        # clip_grad_norm_'s factor from a norm x and the maximum 2: min(1, 2 / (x + 1e-6))
        ("clip_scale", np.asarray(2.0), [1.0, 2.0 / (-1.0 + 1e-6)], "min(1, 2 / (1 + 10⁻⁶))"),
    ],
)
def test_each_function_is_written_and_computed_from_its_one_entry(
    fn: str, param: np.ndarray | None, want: list[float], written: str
) -> None:
    """The hand value (from the written numbers) and the written-out entry of x = [1, −1] on one row."""
    arg = np.array([[1.0, -1.0]])
    step = Map(id="y", title="", formula="", latex="", symbol="y", value=arg, fn=fn, arg=arg, param=param)
    got = [expand._val_Map(step, (0, j), float) for j in range(2)]
    assert np.allclose(got, want, rtol=1e-12)
    assert expand._rhs_Map(step, (0, 0), lambda v: f"{float(v):g}") == written
    assert fn in ELEMENTWISE


# Oracles written here from the definitions (not attncalc's code): the exact and float forms of every
# function of the entry alone, and its hand value, must agree with them. A new function with exact and
# numeric forms fails test_every_function_of_the_entry_has_an_oracle until it has one here.
_PHI = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))  # noqa: E731  the normal CDF
ORACLE = {
    "exp": math.exp,
    "tanh": math.tanh,
    "relu": lambda x: max(x, 0.0),
    "gelu": lambda x: x * _PHI(x),  # Hendrycks & Gimpel: x Φ(x)
    "gelu_tanh": lambda x: 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    "sigmoid": lambda x: 1 / (1 + math.exp(-x)),
    "silu": lambda x: x / (1 + math.exp(-x)),  # x σ(x)
}
WHOLE = [f for f, e in ELEMENTWISE.items() if e.exact is not None or e.numeric is not None]


def test_every_function_of_the_entry_has_an_oracle() -> None:
    assert sorted(WHOLE) == sorted(ORACLE), "give the new function an oracle in ORACLE"
    for f in WHOLE:
        assert ELEMENTWISE[f].exact is not None and ELEMENTWISE[f].numeric is not None, f"{f}: both forms, or neither"


@pytest.mark.parametrize("fn", WHOLE)
def test_exact_float_and_hand_values_agree_with_the_definition(fn: str) -> None:
    import sympy as sp

    from attncalc.derivation.arith import apply_elementwise

    low, high = ELEMENTWISE[fn].domain  # the points of the function's declared domain
    xs = [x for x in (-2.5, -1.0, -0.25, 0.0, 0.5, 1.0, 3.0) if low < x < high]
    assert len(xs) >= 3, f"{fn}: its domain {ELEMENTWISE[fn].domain} holds too few of the test's points"
    want = [ORACLE[fn](x) for x in xs]
    floats = apply_elementwise(fn, np.array(xs))
    assert floats.dtype == float and np.allclose(floats, want, rtol=1e-12, atol=1e-15)
    exact = apply_elementwise(fn, np.array([sp.Rational(str(x)) for x in xs], dtype=object))
    assert exact.dtype == object and np.allclose([float(sp.N(e, 30)) for e in exact], want, rtol=1e-12, atol=1e-15)
    hand = [ELEMENTWISE[fn].hand(x, 0.0, 0) for x in xs]
    assert np.allclose(hand, want, rtol=1e-12, atol=1e-15)


def test_a_function_added_in_its_one_entry_is_computed_by_the_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    """Katharopoulos et al.'s φ(x) = elu(x) + 1, added once: the chain computes it exact and in floats."""
    import sympy as sp

    from attncalc.derivation.arith import Chain
    from attncalc.derivation.elementwise import Elementwise

    entry = Elementwise(
        lambda x, p, j: f"elu({x}) + 1",
        lambda x, p, j: x + 1 if x > 0 else math.exp(x),
        exact=lambda e: sp.Piecewise((e + 1, e > 0), (sp.exp(e), True)),
        numeric=lambda x: np.where(x > 0, x + 1, np.exp(np.minimum(x, 0))),
    )
    monkeypatch.setitem(ELEMENTWISE, "elu_plus_one", entry)
    chain = Chain("float", 3)
    assert np.allclose(chain.apply("elu_plus_one", np.array([2.0, -1.0])), [3.0, math.exp(-1)])
    exact = chain.apply("elu_plus_one", np.array([sp.Integer(2), sp.Integer(-1)], dtype=object))
    assert list(exact) == [3, sp.exp(-1)]


def test_a_function_without_its_exact_and_float_forms_is_refused_by_the_chain() -> None:
    from attncalc.derivation.arith import apply_elementwise

    with pytest.raises(ValueError, match="'divide' has no exact and float form"):
        apply_elementwise("divide", np.array([1.0]))
    with pytest.raises(ValueError, match="unknown element-wise function 'softplus'"):
        apply_elementwise("softplus", np.array([1.0]))
