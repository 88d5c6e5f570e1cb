"""The result objects' methods with odd arguments: one clear error naming the method and the argument,
never a TypeError from deep in a renderer, and never a silent empty text."""

from __future__ import annotations

import pytest

import attncalc
from attncalc.errors import AttncalcError

from ..helpers import PROBLEMS


@pytest.fixture(scope="module")
def d() -> attncalc.Derivation:
    return attncalc.solve(str(PROBLEMS / "decoder-dot.toml"))


@pytest.mark.parametrize("width", ["a", 2.5, 0, -5, True, 39, 10_001, None])
def test_to_text_refuses_a_width_that_is_not_one(d: attncalc.Derivation, width: object) -> None:
    with pytest.raises(AttncalcError, match=r"Derivation\.to_text: width: expected a whole number from 40"):
        d.to_text(width=width)  # type: ignore[arg-type]


def test_to_text_takes_the_narrowest_width_the_command_takes(d: attncalc.Derivation) -> None:
    text = d.to_text(width=40)
    assert text and max(len(line) for line in text.splitlines()) <= 40


def test_a_report_refuses_an_odd_width_too() -> None:
    rep = attncalc.check(str(PROBLEMS / "decoder-dot.toml"), {"weights": [0.155, 0.422, 0.422]})
    with pytest.raises(AttncalcError, match=r"Report\.to_text: width"):
        rep.to_text(width="wide")  # type: ignore[arg-type]


def test_an_unknown_step_names_the_steps_there_are(d: attncalc.Derivation) -> None:
    with pytest.raises(KeyError, match=r"no step 'nope' in this derivation; its steps are: .*weights"):
        d.step("nope")
