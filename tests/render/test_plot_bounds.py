"""`plot` bounds its figure: at most MAX_CELLS cells in all its panels, and a PNG of at most
MAX_PIXELS pixels; past either, one line naming the option to change, before anything is drawn
(32 heads × 45 tokens took 45 s and 828 MB; a 64×64 panel at --dpi 1200 ended in MemoryError)."""

from __future__ import annotations

import json
import struct
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc.render.plot_bounds import MAX_CELLS, MAX_PIXELS

ROOT = Path(__file__).resolve().parents[2]
needs_matplotlib = pytest.mark.skipif(find_spec("matplotlib") is None, reason="matplotlib is not installed")


def multi_head(tmp_path: Path, heads: int, tokens: int) -> Path:
    """A self-attention problem of ``heads`` heads of width 1 over ``tokens`` tokens (identity projections)."""
    rng = np.random.default_rng(0)
    eye = np.eye(heads, dtype=int).tolist()
    raw = {
        "kind": "multi-head",
        "given": {
            "X": rng.integers(-2, 3, (tokens, heads)).tolist(),
            "heads": heads,
            "W_Q": eye,
            "W_K": eye,
            "W_V": eye,
        },
        "settings": {"exact": False},
    }
    f = tmp_path / "p.json"
    f.write_text(json.dumps(raw))
    return f


def one_line(result: Any, path: Path, key: str) -> str:
    assert result.exit_code == 2, result.output
    err = str(result.stderr)
    assert err.startswith("attncalc: error: ") and err.count("\n") == 1, err
    assert f"{path}: {key}: " in err and "Traceback" not in result.output
    return err


def test_the_bounds() -> None:
    """The largest panel (64×64) is one figure's worth of cells."""
    assert MAX_CELLS == 64 * 64


def self_attention(tokens: int) -> dict[str, Any]:
    """Self-attention over ``tokens`` tokens labelled x1, x2, ...: weights of 3 decimals in [0, 1]."""
    x = np.eye(tokens, 2, dtype=int).tolist()
    return {"kind": "self-attention", "tokens": [f"x{i + 1}" for i in range(tokens)], "given": {"X": x}}


def laid_out_inches(tokens: int) -> tuple[float, float]:
    """The width and height the figure of the weights is laid out at, in inches (not rendered)."""
    from attncalc.render.plot_draw import _draw
    from attncalc.render.plot_figure import figure_of

    w, h = _draw(figure_of(attncalc.solve(self_attention(tokens)))).get_size_inches()
    return float(w), float(h)


def docs_png_row() -> str:
    return next(line for line in (ROOT / "docs" / "interface.md").read_text().splitlines() if "a PNG figure" in line)


@needs_matplotlib
def test_the_documented_pixel_bound_is_the_measured_one() -> None:
    """docs/interface.md said a 64×64 panel at the default 200 dpi is about 44 million pixels, and the
    PNG was refused ("at most 185 dpi fits"). What the docs say now is measured from the laid-out figure:
    the largest dpi a 64×64 panel fits at, and the largest panel that fits at the default 200 dpi."""
    import math
    import re

    row = docs_png_row()
    million = int(re.search(r"\| (\d+) million pixels", row).group(1))  # type: ignore[union-attr]
    assert million * 1_000_000 == MAX_PIXELS
    best = int(re.search(r"64 × 64 panel .* fits at up to (\d+) dpi", row).group(1))  # type: ignore[union-attr]
    side = int(re.search(r"at the default 200 dpi a panel of up to (\d+) × \1", row).group(1))  # type: ignore[union-attr]

    def pixels(tokens: int, dpi: int) -> int:
        w, h = laid_out_inches(tokens)
        return math.ceil(w * dpi) * math.ceil(h * dpi)

    assert pixels(64, best) <= MAX_PIXELS < pixels(64, best + 1)
    assert pixels(64, 200) > MAX_PIXELS
    assert pixels(side, 200) <= MAX_PIXELS < pixels(side + 1, 200)


@needs_matplotlib
def test_too_many_cells_in_all_the_panels_is_one_line(cli: Any, tmp_path: Path) -> None:
    """8 heads × 24×24 weights = 4,608 cells: past the bound, refused naming --step and one head to draw."""
    f = multi_head(tmp_path, 8, 24)
    out = tmp_path / "w.svg"
    err = one_line(cli("plot", str(f), "-o", str(out)), f, "--step")
    assert f"8 panels of 24×24 = {8 * 24 * 24:,} cells" in err and f"at most {MAX_CELLS:,}" in err
    assert "head.1.weights" in err
    assert not out.exists()
    assert cli("plot", str(f), "-o", str(out), "--step", "head.1.weights").exit_code == 0  # one head: 576 cells


@needs_matplotlib
def test_the_reported_32_heads_of_45_tokens(cli: Any, tmp_path: Path) -> None:
    f = multi_head(tmp_path, 32, 45)
    err = one_line(cli("plot", str(f), "-o", str(tmp_path / "w.png")), f, "--step")
    assert f"{32 * 45 * 45:,} cells" in err


@needs_matplotlib
def test_a_png_past_the_pixel_bound_names_dpi_and_the_dpi_that_fits(cli: Any, tmp_path: Path) -> None:
    """A 12×12 panel is at least 6 inches a side: at 1200 dpi over 50 million pixels. The dpi the
    message offers draws a PNG within the bound (its size read from the PNG's own header)."""
    f = multi_head(tmp_path, 1, 12)
    out = tmp_path / "w.png"
    err = one_line(cli("plot", str(f), "-o", str(out), "--dpi", "1200"), f, "--dpi")
    assert "past the bound of 50 million pixels" in err and not out.exists()
    best = int(err.split("at most ")[1].split(" dpi fits")[0])
    assert 50 <= best < 1200
    assert cli("plot", str(f), "-o", str(out), "--dpi", str(best)).exit_code == 0
    width, height = struct.unpack(">II", out.read_bytes()[16:24])  # the IHDR chunk
    assert width * height <= MAX_PIXELS


@needs_matplotlib
def test_the_api_says_dpi(tmp_path: Path) -> None:
    problem = json.loads(multi_head(tmp_path, 1, 12).read_text())
    with pytest.raises(attncalc.ProblemError, match=r"<dict>: dpi: a PNG at 1200 dpi"):
        attncalc.plot(problem, "head.1.weights", "png", dpi=1200)
    with pytest.raises(attncalc.ProblemError, match=r": step: the figure would have"):
        attncalc.plot(json.loads(multi_head(tmp_path, 8, 24).read_text()))
