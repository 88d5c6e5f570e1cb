"""The bounds of a figure ``plot`` draws: cells in all its panels, and a PNG's pixels.

Drawing costs by the cell (a rectangle and a number each: one 64×64 panel takes seconds, 32 heads of
45×45 took 45 s and 828 MB); a PNG costs by the pixel (a 64×64 panel at 1200 dpi is 1.6 gigapixels:
MemoryError). Past a bound the figure is refused before it is drawn, in one line naming the option
to change: ``--step`` (one head, or fewer time steps) or ``--dpi``. No matplotlib here.
"""

from __future__ import annotations

import math

from ..errors import ProblemError
from .plot_figure import MAX_SIDE, Figure

MAX_CELLS = MAX_SIDE * MAX_SIDE  # cells in all the panels of one figure: as many as its largest panel
MAX_PIXELS = 50_000_000  # pixels of a PNG (about 7000 × 7000, 200 MB of RGBA): a 64×64 panel of 3-decimal
# weights fits at up to 185 dpi (about 500 MB peak), a 59×59 one at the default 200 dpi (tests/render/test_plot_bounds.py)


class TooManyPixels(Exception):
    """A PNG past :data:`MAX_PIXELS` at the dpi asked for; :func:`pixel_message` words it."""

    def __init__(self, width: int, height: int, dpi: float, best: int) -> None:
        self.width, self.height, self.dpi, self.best = width, height, dpi, best
        super().__init__(f"{width}×{height} pixels")


def check_cells(path: str, figure: Figure, option: str) -> None:
    """Refuse a figure of more than MAX_CELLS cells in all, naming the option that chose its steps."""
    cells = sum(p.values.size for p in figure.panels)
    if cells <= MAX_CELLS:
        return
    n, m = figure.panels[0].values.shape
    what = f"{len(figure.panels)} panels of {n}×{m}" if len(figure.panels) > 1 else f"{n}×{m}"
    spec = figure.subtitle.rsplit("[", 1)[-1].rstrip("]")  # the step or template drawn: "head.t.weights"
    one = ".".join("1" if part == "t" else part for part in spec.split("."))
    fewer = f" (one of them: {one})" if len(figure.panels) > 1 and one != spec else ""
    raise ProblemError(
        path,
        option,
        f"the figure would have {what} = {cells:,} cells; a figure shows at most {MAX_CELLS:,} cells: "
        f"plot fewer steps with {option}{fewer}",
    )


def check_pixels(width_in: float, height_in: float, dpi: float) -> None:
    """Raise :class:`TooManyPixels` for a PNG of ``width_in`` × ``height_in`` inches past MAX_PIXELS at ``dpi``."""
    width, height = math.ceil(width_in * dpi), math.ceil(height_in * dpi)
    if width * height <= MAX_PIXELS:
        return
    best = int(math.sqrt(MAX_PIXELS / (width_in * height_in)))
    raise TooManyPixels(width, height, dpi, best)


def pixel_message(exc: TooManyPixels, option: str) -> str:
    """What a refused PNG says: its size, the bound, and the dpi that fits."""
    fits = f"at most {exc.best} dpi fits" if exc.best >= 50 else "no dpi from 50 fits; write an SVG or PDF"
    return (
        f"a PNG at {exc.dpi:g} dpi would be {exc.width:,}×{exc.height:,} pixels, past the bound of "
        f"{MAX_PIXELS // 1_000_000} million pixels ({fits}): lower {option}"
    )
