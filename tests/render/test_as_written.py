"""'as written: …' is a hand-rounded number at the shown precision: it keeps its trailing zeros."""

from __future__ import annotations

from typing import Any

import pytest

from attncalc.render.expand import written

from ..helpers import PROBLEMS


def test_written_keeps_every_decimal() -> None:
    assert written(15.8, 2) == "15.80"
    assert written(15.804, 2) == "15.80"
    assert written(2.0, 3) == "2.000"
    assert written(0.2504, 3) == "0.250"
    assert written(-0.001, 2) == "0.00"  # no "-0.00"
    assert written(-1.5, 1) == "-1.5"
    assert written(7.0, 0) == "7"


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "html"])
def test_lecture_weight_as_written_shows_three_decimals(cli: Any, fmt: str) -> None:
    # the lecture at 3 decimals: α_3 = 1.221 / 4.876 = 0.25041… by hand, written 0.250 (not 0.25)
    args = ["solve", str(PROBLEMS / "lecture-dot.toml"), "--width", "200"]
    out = cli(*args).stdout if fmt == "text" else cli(*args, "-f", fmt).stdout
    assert "as written: 0.250" in out
    assert "as written: 0.25)" not in out and "as written: 0.25 " not in out


def test_lstm_decoder_product_as_written_at_two_decimals(cli: Any) -> None:
    # 0.85·1.41 = 1.1985 by hand, at 2 decimals 1.20 (the line shows the unrounded chain's 1.19)
    out = cli("solve", str(PROBLEMS / "lstm-doc-decoder.toml"), "--width", "250", "--detail", "full").stdout
    assert "0.85·1.41 = 1.19   (as written: 1.20)" in out
