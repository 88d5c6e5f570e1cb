"""Each element-wise function of a Map step lives in attncalc/elementwise.py: a step naming another
one is refused where the mechanism builds it (before, the sheets fell through to "times param" and
crashed with a traceback on float(None))."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attncalc.derivation import Map
from attncalc.elementwise import ELEMENTWISE
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
